"""Which files a run looks at: Python files and notebooks under the given paths, minus exclusions.

Directories recurse (hidden folders and symlinked folders are not entered); files that git
ignores are skipped when the folder is in a git work tree (`git check-ignore`, the same rules
git applies); `--include`/`--exclude` globs match the path or the file name.
"""
import fnmatch
import os
import subprocess
from typing import Iterable, List, Sequence

SUFFIXES = (".py", ".ipynb")


def discover(paths: Iterable[str], include: Sequence[str] = (), exclude: Sequence[str] = (),
             respect_gitignore: bool = True) -> List[str]:
    """Files to process, in a stable order, each once. Explicitly named files are always kept."""
    found: List[str] = []
    walked: List[str] = []
    for path in paths:
        if not os.path.isdir(path):
            found.append(path)
            continue
        below = []
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            below.extend(os.path.join(root, name) for name in sorted(files) if name.endswith(SUFFIXES))
        ignored = _git_ignored(path, below) if respect_gitignore else set()
        walked.extend(p for p in below if p not in ignored and _selected(p, include, exclude))
    unique, seen = [], set()
    for path in found + walked:
        key = os.path.normpath(path)
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def _selected(path: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    def matches(patterns):
        name = os.path.basename(path)
        return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(name, p) for p in patterns)

    return (not include or matches(include)) and not matches(exclude)


def _git_ignored(folder: str, paths: List[str]) -> set:
    """The paths under `folder` that git ignores (none when git or a work tree is missing)."""
    if not paths:
        return set()
    try:
        done = subprocess.run(["git", "-C", folder, "check-ignore", "--stdin", "-z"],
                              input="\0".join(os.path.abspath(p) for p in paths).encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return set()
    if done.returncode not in (0, 1):  # 128: not in a work tree
        return set()
    hits = {p for p in done.stdout.decode(errors="replace").split("\0") if p}
    return {p for p in paths if os.path.abspath(p) in hits}
