"""Paths in, results out: discovery, prefilter, analysis, cross-file plumbing, verification, writes.

This is the one place that turns a per-file error into a `FAILED` result; nothing here aborts a run.
"""
import concurrent.futures
import contextlib
import io
import os
import re
import signal
import tempfile
import tokenize
import traceback
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Tuple

import libcst as cst

from qmigrate import engine, python3_check, towers
from qmigrate.diagnostics import Diagnostic, Failure, FileResult, Status
from qmigrate.discovery import discover
from qmigrate.engine import Options
from qmigrate.linking import Linker
from qmigrate.program import Program
from qmigrate.rules.findings import PerTowerPipelines, SharedBatchAcrossTowers
from qmigrate.rules.unsupported import NotebookNotMigrated


def _failed(path: str, reason: str, source: bytes = None, failure: Failure = None,
            trace: str = None) -> FileResult:
    return FileResult(path, Status.FAILED, old_source=source, error=reason, failure=failure, traceback=trace)


def _internal_error(path: str, error: Exception, source: bytes) -> FileResult:
    """A bug of ours, reported as such with its traceback (shown by --debug) so it can be filed."""
    return _failed(path, "internal error in qmigrate (%s: %s); file left unchanged; run with --debug for the "
                         "traceback and report it" % (type(error).__name__, error),
                   source, Failure.INTERNAL, traceback.format_exc())


def _guarded(path: str, source: bytes, work):
    """`work()`, or a FAILED result saying why: one file's trouble never stops the run."""
    try:
        return work()
    except cst.ParserSyntaxError as error:
        python2 = _python2(source)  # `print "x"`: libcst refuses it too, but the user needs to know why
        if python2:
            return _failed(path, python2, source, Failure.PYTHON2)
        return _failed(path, "does not parse: line %d: %s" % (error.raw_line, error.message), source, Failure.SYNTAX)
    except python3_check.NotPython3 as error:
        return _failed(path, str(error), source, Failure.PYTHON2 if error.python2 else Failure.SYNTAX)
    except RecursionError:
        return _failed(path, "nesting too deep to analyse", source, Failure.SYNTAX)
    except Exception as error:  # a bug of ours must not stop the run or lose a file
        return _internal_error(path, error, source)


def _undecodable(source: bytes):
    """Why Python could not read `source` as text, or None.

    Checked before any analysis, so that a KeyError (a LookupError) or a SyntaxError of ours is
    never mistaken for the file's encoding trouble.
    """
    if b"\0" in source:  # Python refuses NUL bytes in source: binary content (or UTF-16, which it cannot read)
        return "binary content (NUL bytes)"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        source.decode(encoding)
    except SyntaxError as error:  # "invalid or missing encoding declaration"
        return error.msg
    except (LookupError, UnicodeDecodeError) as error:
        return str(error)
    return None


def _python2(source: bytes):
    """The Python 2 verdict on a file libcst refused, or None when it is not Python 2 syntax."""
    try:
        python3_check.check(source)
    except python3_check.NotPython3 as error:
        return str(error) if error.python2 else None
    return None


@dataclass(frozen=True)
class _FirstPass:
    """What a worker learnt about one file: its result, final unless set-level work needs the file."""

    result: FileResult
    pipelines: int = 0
    remaining: int = 0  # queue calls left (plumbing aside)
    plumbing: bool = False  # has start_queue_runners / Coordinator calls
    consumers: bool = False  # has a loop that may be a tower loop fed by an input call
    pipeline_functions: Tuple[Tuple[str, int], ...] = ()
    changed_helpers: Tuple[str, ...] = ()  # helpers whose signature the migration changed
    built: int = 0  # queue calls left that build queues when the program runs


def _first_pass(job) -> _FirstPass:
    """Read, prefilter, parse, analyse and verify one file (in a worker process). Never raises."""
    path, options = job
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        return _FirstPass(_failed(path, "cannot read: %s" % (error.strerror or error), failure=Failure.READ))
    if not engine.may_contain_queue_code(source):
        return _FirstPass(FileResult(path, Status.SKIPPED, old_source=source))
    if path.endswith(".ipynb"):
        if not options.wants(NotebookNotMigrated.code):
            return _FirstPass(FileResult(path, Status.CLEAN, old_source=source))
        return _FirstPass(_notebook(path, source))
    problem = _undecodable(source)
    if problem:
        return _FirstPass(_failed(path, "cannot decode: " + problem, source, Failure.UNDECODABLE))

    def work():
        analysis = engine.analyse(path, source, options)
        problem = engine.verify(analysis)
        result = _failed(path, problem, source, Failure.VERIFY) if problem else analysis.result()
        return _FirstPass(result, analysis.pipelines, analysis.remaining_queue_calls,
                          any(rule in engine.PLUMBING for rule, _, _, _ in analysis.occurrences),
                          b"device" in source and bool(towers.find_consumers(analysis.module, analysis.imports)),
                          tuple(sorted(analysis.pipeline_functions.items())), tuple(analysis.changed_helpers),
                          analysis.queues_built)

    done = _guarded(path, source, work)
    return _FirstPass(done) if isinstance(done, FileResult) else done


def migrate(paths: Iterable[str], options: Options = Options(), write: bool = False,
            include: Sequence[str] = (), exclude: Sequence[str] = (), jobs: int = 1,
            progress=None) -> List[FileResult]:
    """Analyse every file (in `jobs` processes); with `write`, replace the changed ones atomically.

    Results come in the order files were found. `progress(n)` is called as files complete.
    Never raises per file.
    """
    files = discover(paths, include, exclude)
    first = dict(zip(files, _map(_first_pass, [(path, options) for path in files], jobs, progress)))
    results: Dict[str, FileResult] = {path: done.result for path, done in first.items()}
    sources = {path: done.result.old_source for path, done in first.items()
               if done.result.old_source is not None and not path.endswith(".ipynb")}

    # Set-level work happens here, on the few files that take part: keeping helpers that other
    # modules call, linking tower loops to their pipelines across modules, and removing queue
    # runners from each program whose modules build no queue any more.
    program = Program(files, sources.get)
    keeps = _helpers_to_keep(first, program)
    analyses: Dict[str, engine.FileAnalysis] = {}
    for path, done in first.items():
        if done.consumers or path in keeps:
            _reanalyse(path, sources, analyses, results, options, keeps)
    pipeline_functions = {path: dict(done.pipeline_functions) for path, done in first.items()}
    _link_towers(sources, analyses, results, options, pipeline_functions, keeps)
    migrated_any = any(done.pipelines for done in first.values()) or any(a.pipelines for a in analyses.values())

    def builds_queues(path):
        return analyses[path].queues_built if path in analyses else first[path].built

    def queues_left(path):
        """Whether the program `path` belongs to still builds queues (all the set's files when the
        file imports modules dynamically: what it loads is unknown)."""
        dynamic = re.search(rb"\bimportlib\b|\b__import__\b", sources.get(path) or b"")
        scope = first if dynamic else program.closure(path)
        return any(builds_queues(p) for p in scope if p in first)

    if migrated_any:
        for path, done in first.items():
            if done.plumbing and path not in analyses and not queues_left(path):
                _reanalyse(path, sources, analyses, results, options, keeps)
    for path, analysis in analyses.items():
        try:
            engine.remove_plumbing(analysis, migrated_any, queues_left(path))
            problem = engine.verify(analysis)
        except Exception as error:  # a bug of ours: this file is left unchanged, the others go on
            results[path] = _internal_error(path, error, analysis.source)
            continue
        results[path] = _failed(path, problem, analysis.source, Failure.VERIFY) if problem else analysis.result()

    if write:
        for path, result in results.items():
            if result.changed:
                try:
                    atomic_write(path, result.new_source)
                except OSError as error:
                    results[path] = _failed(path, "cannot write: %s" % (error.strerror or error), result.old_source,
                                            Failure.WRITE)
    return [results[path] for path in files]


def _map(function, jobs_list, jobs: int, progress):
    """function over the list, in order; in a process pool when jobs > 1."""
    if jobs <= 1 or len(jobs_list) < 2:
        out = []
        for item in jobs_list:
            out.append(function(item))
            if progress:
                progress(1)
        return out
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        out = []
        for done in pool.map(function, jobs_list, chunksize=max(1, min(32, len(jobs_list) // (jobs * 8) or 1))):
            out.append(done)
            if progress:
                progress(1)
        return out


def _helpers_to_keep(first: Dict[str, _FirstPass], program: Program) -> Dict[str, Dict[str, str]]:
    """path -> {helper: who else calls it} for migrated helpers that other modules of the set refer
    to: their signature must stay, so the pipelines call a migrated copy instead."""
    keeps: Dict[str, Dict[str, str]] = {}
    for path, done in first.items():
        for name in done.changed_helpers:
            found = program.references(name, path)
            if found:
                places = ["%s:%d" % (os.path.basename(where), line) for where, line in found]
                more = " and %d more" % (len(places) - 3) if len(places) > 3 else ""
                keeps.setdefault(path, {})[name] = "its callers in other modules (%s%s)" % (
                    ", ".join(places[:3]), more)
    return keeps


def _reanalyse(path, sources, analyses, results, options, keeps, module=None, edits=None) -> None:
    """Analyse a file again in this process, where set-level work can use its tree (and `edits`)."""
    if path not in sources or results[path].status is Status.FAILED:
        return
    done = _guarded(path, sources[path], lambda: engine.analyse(path, sources[path], options, module, edits,
                                                                keeps.get(path)))
    if isinstance(done, FileResult):
        results[path] = done
        analyses.pop(path, None)
    else:
        analyses[path] = done


def _notebook(path: str, source: bytes) -> FileResult:
    """Notebooks are reported, never rewritten or passed over in silence."""
    rule = NotebookNotMigrated
    finding = Diagnostic(path, 1, 1, rule.code, "%s; to do: %s" % (rule.message, rule.advice), False, rule.safety)
    return FileResult(path, Status.DIAGNOSED, (finding,), old_source=source)


def _link_towers(sources, analyses, results, options, pipeline_functions, keeps) -> None:
    """Re-analyse the modules that a tower loop's input chain runs through, with their edits."""
    parsed: Dict[str, cst.Module] = {path: a.module for path, a in analyses.items()}

    def module_of(path):
        if path not in parsed:
            parsed[path] = None  # not in the set, unreadable or unparsable: links stop there
            if path in sources and results[path].status is not Status.FAILED:
                try:
                    parsed[path] = engine.parse(sources[path])
                except Exception:
                    pass
        return parsed[path]

    consumers = {}
    for path, analysis in analyses.items():
        found = towers.find_consumers(analysis.module, analysis.imports)
        if found:
            consumers[path] = found
    if not consumers:
        return
    linker = Linker(list(sources), module_of, lambda p: pipeline_functions.get(p, {}))
    edits: Dict[str, towers.TowerEdits] = {}
    findings, failures = [], []
    for path, found in consumers.items():
        for consumer in found:
            chain, reason = linker.chain(path, consumer)
            if chain is None:
                failures.append((path, consumer, reason))
                continue
            code = {"prefetch": "QM401", "shared": "QM901", "per_tower": "QM902"}[consumer.kind]
            if not options.wants(code):
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
        _reanalyse(path, sources, analyses, results, options, keeps, module_of(path), module_edits)
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
    temporary file is used and removed on any error; SIGINT and SIGTERM are held back while a file
    is written, so only a SIGKILL in the midst of writing one file could then leave it behind.
    """
    # SIGINT/SIGTERM wait until the file is whole again: no interruption between creating the
    # temporary file and renaming it can strand it.
    with _signals_deferred():
        _atomic_write(path, data)


@contextlib.contextmanager
def _signals_deferred():
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _atomic_write(path: str, data: bytes) -> None:
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
