"""Paths in, results out: discovery, prefilter, analysis, cross-file plumbing, verification, writes.

This is the one place that turns a per-file error into a `FAILED` result; nothing here aborts a run.
"""
import os
import tempfile
from typing import Dict, Iterable, List

import libcst as cst

from qmigrate import engine
from qmigrate.diagnostics import FileResult, Status
from qmigrate.engine import Options


def discover(paths: Iterable[str]) -> List[str]:
    """Python files under `paths` (directories recurse over *.py), in a stable order, each once."""
    found: List[str] = []
    seen = set()
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(os.path.join(root, name) for name in sorted(files) if name.endswith(".py"))
        else:
            found.append(path)
    unique = []
    for path in found:
        key = os.path.normpath(path)
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def _failed(path: str, reason: str, source: bytes = None) -> FileResult:
    return FileResult(path, Status.FAILED, old_source=source, error=reason)


def migrate(paths: Iterable[str], options: Options = Options(), write: bool = False) -> List[FileResult]:
    """Analyse every file; with `write`, replace the changed ones atomically. Never raises per file."""
    results: Dict[str, FileResult] = {}
    analyses: Dict[str, engine.FileAnalysis] = {}
    files = discover(paths)
    for path in files:
        try:
            with open(path, "rb") as handle:
                source = handle.read()
        except OSError as error:
            results[path] = _failed(path, "cannot read: %s" % (error.strerror or error))
            continue
        if not engine.may_contain_queue_code(source):
            results[path] = FileResult(path, Status.CLEAN, old_source=source)
            continue
        try:
            analyses[path] = engine.analyse(path, source, options)
        except cst.ParserSyntaxError as error:
            results[path] = _failed(path, "does not parse: line %d: %s" % (error.raw_line, error.message), source)
        except (UnicodeDecodeError, LookupError) as error:
            results[path] = _failed(path, "cannot decode: %s" % error, source)
        except RecursionError:
            results[path] = _failed(path, "nesting too deep to analyse", source)
        except Exception as error:  # a bug of ours must not stop the run or lose a file
            results[path] = _failed(path, "internal error (%s: %s); file left unchanged"
                                    % (type(error).__name__, error), source)

    migrated_any = any(a.pipelines for a in analyses.values())
    queues_left = any(a.remaining_queue_calls for a in analyses.values())
    for path, analysis in analyses.items():
        try:
            engine.remove_plumbing(analysis, migrated_any, queues_left)
            problem = engine.verify(analysis)
        except Exception as error:
            problem = "internal error (%s: %s); file left unchanged" % (type(error).__name__, error)
        result = analysis.result()
        results[path] = _failed(path, problem, analysis.source) if problem else result

    if write:
        for path, result in results.items():
            if result.changed:
                try:
                    atomic_write(path, result.new_source)
                except OSError as error:
                    results[path] = _failed(path, "cannot write: %s" % (error.strerror or error), result.old_source)
    return [results[path] for path in files]


def atomic_write(path: str, data: bytes) -> None:
    """Replace the file behind `path` (links followed) with `data`, keeping its mode; all or nothing."""
    real = os.path.realpath(path)
    folder = os.path.dirname(real) or "."
    mode = os.stat(real).st_mode & 0o7777
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".qmigrate-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, real)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
