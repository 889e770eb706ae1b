"""Paths in, results out: discovery, prefilter, analysis, cross-file plumbing, verification, writes.

This is the one place that turns a per-file error into a `FAILED` result; nothing here aborts a run.
"""
import os
import tempfile
from typing import Dict, Iterable, List, Sequence

import libcst as cst

from qmigrate import engine, towers
from qmigrate.diagnostics import Diagnostic, FileResult, Status
from qmigrate.discovery import discover
from qmigrate.engine import Options
from qmigrate.linking import Linker
from qmigrate.names import ImportMap
from qmigrate.rules.findings import PerTowerPipelines, SharedBatchAcrossTowers
from qmigrate.rules.unsupported import NotebookNotMigrated


def _failed(path: str, reason: str, source: bytes = None) -> FileResult:
    return FileResult(path, Status.FAILED, old_source=source, error=reason)


def _guarded(path: str, source: bytes, work):
    """`work()`, or a FAILED result saying why: one file's trouble never stops the run."""
    try:
        return work()
    except cst.ParserSyntaxError as error:
        return _failed(path, "does not parse: line %d: %s" % (error.raw_line, error.message), source)
    except (UnicodeDecodeError, LookupError, SyntaxError) as error:
        # SyntaxError here is the encoding detection's ("invalid or missing encoding declaration").
        return _failed(path, "cannot decode: %s" % (getattr(error, "msg", None) or error), source)
    except RecursionError:
        return _failed(path, "nesting too deep to analyse", source)
    except Exception as error:  # a bug of ours must not stop the run or lose a file
        return _failed(path, "internal error (%s: %s); file left unchanged" % (type(error).__name__, error), source)


def migrate(paths: Iterable[str], options: Options = Options(), write: bool = False,
            include: Sequence[str] = (), exclude: Sequence[str] = ()) -> List[FileResult]:
    """Analyse every file; with `write`, replace the changed ones atomically. Never raises per file."""
    results: Dict[str, FileResult] = {}
    sources: Dict[str, bytes] = {}
    files = discover(paths, include, exclude)
    for path in files:
        try:
            with open(path, "rb") as handle:
                sources[path] = handle.read()
        except OSError as error:
            results[path] = _failed(path, "cannot read: %s" % (error.strerror or error))

    analyses: Dict[str, engine.FileAnalysis] = {}
    for path, source in list(sources.items()):
        if not engine.may_contain_queue_code(source):
            results[path] = FileResult(path, Status.SKIPPED, old_source=source)
            continue
        if path.endswith(".ipynb"):
            results[path] = _notebook(path, source)
            del sources[path]
            continue
        done = _guarded(path, source, lambda: engine.analyse(path, source, options))
        if isinstance(done, FileResult):
            results[path] = done
        else:
            analyses[path] = done

    _link_towers(sources, analyses, results, options)

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


def _notebook(path: str, source: bytes) -> FileResult:
    """Notebooks are reported, never rewritten or passed over in silence."""
    rule = NotebookNotMigrated
    finding = Diagnostic(path, 1, 1, rule.code, "%s; to do: %s" % (rule.message, rule.advice), False, rule.safety)
    return FileResult(path, Status.DIAGNOSED, (finding,), old_source=source)


def _link_towers(sources, analyses, results, options) -> None:
    """Re-analyse the modules that a tower loop's input chain runs through, with their edits."""
    parsed: Dict[str, cst.Module] = {path: a.module for path, a in analyses.items()}

    def module_of(path):
        if path not in parsed:
            parsed[path] = None  # not in the set, unreadable or unparsable: links stop there
            if path in sources and (path not in results or results[path].status is Status.SKIPPED):
                try:
                    parsed[path] = engine.parse(sources[path])
                except Exception:
                    pass
        return parsed[path]

    consumers = {}
    for path, analysis in analyses.items():
        found = towers.find_consumers(analysis.module, ImportMap(analysis.module))
        if found:
            consumers[path] = found
    if not consumers:
        return
    linker = Linker(list(sources), module_of, lambda p: analyses[p].pipeline_functions if p in analyses else {})
    edits: Dict[str, towers.TowerEdits] = {}
    findings, failures = [], []
    for path, found in consumers.items():
        for consumer in found:
            chain, reason = linker.chain(path, consumer)
            if chain is None:
                failures.append((path, consumer, reason))
                continue
            if consumer.kind != "prefetch":
                findings.append((path, consumer))
                if not options.unsafe:
                    continue
            # The unsafe fixes for shared batches and per-tower pipelines always shard.
            strategy = options.tower_strategy if consumer.kind == "prefetch" else "shard"
            reason = linker.add_edits(edits, path, consumer, chain, strategy)
            if reason:
                failures.append((path, consumer, reason))
    for path, module_edits in edits.items():
        module = module_of(path)
        done = _guarded(path, sources[path],
                        lambda: engine.analyse(path, sources[path], options, module=module, edits=module_edits))
        if isinstance(done, FileResult):
            results[path] = done
            analyses.pop(path, None)
        else:
            analyses[path] = done
            results.pop(path, None)
    for path, consumer, reason in failures:
        if consumer.prefetch_call is not None and path in analyses:
            analyses[path].reasons[id(consumer.prefetch_call)] = "its tower loop cannot be linked: " + reason
    for path, consumer in findings:
        if path in analyses:
            rule = SharedBatchAcrossTowers if consumer.kind == "shared" else PerTowerPipelines
            analyses[path].add_finding(rule, consumer.source_call, fixed=options.unsafe)

def atomic_write(path: str, data: bytes) -> None:
    """Replace the file behind `path` (links followed) with `data`, keeping its mode; all or nothing.

    The new content is written to an unnamed file in the same folder (O_TMPFILE) and only given a
    name once complete, immediately renamed over the original: a run killed at any moment leaves
    either the old file or the new one, and no temporary file. Where that is not possible, a named
    temporary file is used and removed on any error or interruption (SIGINT, and SIGTERM through
    the CLI's handler); only a SIGKILL in the midst of writing one file can then leave it behind.
    """
    real = os.path.realpath(path)
    folder = os.path.dirname(real) or "."
    mode = os.stat(real).st_mode & 0o7777
    if hasattr(os, "O_TMPFILE"):
        try:
            _write_unnamed_then_rename(folder, real, data, mode)
            return
        except OSError:
            pass  # unsupported here (some file systems, or linkat across /proc): the target is untouched
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


def _write_unnamed_then_rename(folder: str, target: str, data: bytes, mode: int) -> None:
    fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, mode)
    try:
        remaining = memoryview(data)
        while remaining:
            remaining = remaining[os.write(fd, remaining):]
        os.fchmod(fd, mode)
        os.fsync(fd)
        name = os.path.join(folder, ".qmigrate-%d-%d.tmp" % (os.getpid(), fd))
        os.link("/proc/self/fd/%d" % fd, name)  # the name exists only between here and the rename
        try:
            os.replace(name, target)
        except BaseException:
            os.unlink(name)
            raise
    finally:
        os.close(fd)
