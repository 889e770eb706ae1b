"""--output-dir: a migrated copy of the trees, the sources left untouched.

One directory PATH is copied to DIR itself; several PATHs (or files) each go to DIR/<name>.
Migrated files get their new content (mode kept); every other file is copied as it is, links
are kept as links, and unreadable files are reported by the run and left out.
"""
import os
import shutil
from typing import Dict, List, Sequence

from qmigrate.diagnostics import FileResult


class OutputDirError(ValueError):
    """The output folder cannot be used (it lies inside a source tree)."""


def destinations(paths: Sequence[str], out_dir: str) -> Dict[str, str]:
    """{source root: its copy's root}."""
    out = os.path.abspath(out_dir)
    roots = {}
    for path in paths:
        source = os.path.abspath(path)
        if os.path.isdir(source) and (out == source or out.startswith(source + os.sep)):
            raise OutputDirError("the output folder %s is inside the source tree %s" % (out_dir, path))
        single_dir = len(paths) == 1 and os.path.isdir(source)
        roots[path] = out if single_dir else os.path.join(out, os.path.basename(source.rstrip(os.sep)))
    return roots


def write_tree(paths: Sequence[str], out_dir: str, results: List[FileResult]) -> List[str]:
    """Copy the trees with migrated content; returns the problems met (path: reason)."""
    migrated = {os.path.abspath(r.path): r.new_source for r in results if r.changed}
    problems = []
    for path, root in destinations(paths, out_dir).items():
        if not os.path.isdir(path):
            _copy_entry(os.path.abspath(path), root, migrated, problems)
            continue
        for folder, dirs, files in os.walk(path):
            target = os.path.join(root, os.path.relpath(folder, path))
            os.makedirs(target, exist_ok=True)
            for name in sorted(dirs):
                if os.path.islink(os.path.join(folder, name)):  # os.walk does not enter it: keep the link
                    _copy_entry(os.path.join(folder, name), os.path.join(target, name), migrated, problems)
            for name in sorted(files):
                _copy_entry(os.path.join(folder, name), os.path.join(target, name), migrated, problems)
    return problems


def _copy_entry(source: str, target: str, migrated: Dict[str, bytes], problems: List[str]) -> None:
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    try:
        if os.path.islink(source):
            if os.path.lexists(target):
                os.unlink(target)
            os.symlink(os.readlink(source), target)
        elif os.path.abspath(source) in migrated:
            with open(target, "wb") as handle:
                handle.write(migrated[os.path.abspath(source)])
            shutil.copymode(source, target)
        else:
            shutil.copy2(source, target)
    except OSError as error:
        problems.append("%s: cannot copy: %s" % (source, error.strerror or error))
