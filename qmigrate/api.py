"""Paths in, results out: discovery, prefilter, analysis, cross-file plumbing, verification, writes.

This is the one place that turns a per-file error into a `FAILED` result; nothing here aborts a run.
"""
import ast
import collections
import contextlib
import gc
import io
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import tempfile
import tokenize
import traceback
import dataclasses
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

from qmigrate import (captured_params, chained_records, dispatched_readers, drawn_arguments, engine,
                      estimator_inputs, factory_reasons, family_reasons, fresh_receivers, graph_copies, handed_down,
                      imported_helpers, library_runners, memory, notebooks, provider_factories, python3_check,
                      returned_records, saved_graphs, star_imports, statement_memo, tower_reads, towers,
                      uncalled_datasets, uncalled_queues, unlinked, untraced_towers)
from qmigrate.diagnostics import Diagnostic, Failure, FileResult, Status
from qmigrate.discovery import discover
from qmigrate.engine import Options
from qmigrate.linking import Linker, LinkPlan
from qmigrate.names import ImportMap
from qmigrate.positions import stdlib_tree
from qmigrate.rules import rule_for
from qmigrate.summary import ConsumerSummary, ModuleSummary, digest, summarise, summarise_source
from qmigrate.program import ImportSpecs, Program, import_specs, quick_import_specs, reach
from qmigrate.rules.findings import PerTowerPipelines, SharedBatchAcrossTowers, UntracedTowerInput
from qmigrate.rules.target_api import ApiNotInTarget
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
        # CPython's line and reason where it refuses the file too: libcst's tokenizer errors say "line 1".
        where = python3_check.where_refused(source) or "line %d: %s" % (error.raw_line, error.message)
        return _failed(path, "does not parse: " + where, source, Failure.SYNTAX)
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
class _Job:
    """One file for a worker. The first pass has no digest; later passes redo a file with what
    set-level work asks of it, and check that its bytes are those the first pass read."""

    path: str
    options: Options
    plan: Optional[LinkPlan] = None  # what linking tower loops asks of this module
    drop_plumbing: bool = False  # no queue is left in the set and some pipeline was migrated
    digest: Optional[str] = None
    # Whether queue runners go is known only once every relinked file is done: such a file also
    # gives its result without them, unless the answer is already known to be no.
    also_without_plumbing: bool = False
    keep: Tuple[Tuple[str, str], ...] = ()  # helpers other modules call: (name, who), kept as they are
    # Reader helpers across modules (imported_helpers): those imported it may call with the record,
    # and its own helpers to migrate for their callers elsewhere.
    imported: Tuple[imported_helpers.Import, ...] = ()
    migrate: Tuple[str, ...] = ()
    refused: Tuple[Tuple[str, str], ...] = ()  # helpers (imported: by local name) that stay, and why
    handed: Optional[handed_down.Handed] = None  # batching helpers across modules (handed_down.py)
    makers: Tuple[imported_helpers.Import, ...] = ()  # reader makers of other modules' classes (reader_makers.py)
    chain: Optional[chained_records.Ask] = None  # its part in records returned across modules into a queue
    uncalled: Tuple[str, ...] = ()  # its functions no code of the run calls (uncalled_datasets)
    # Provider factories of other modules its functions call (provider_factories): (function,
    # object, method, the factory's sibling, the dotted name of the object's class).
    factories: Tuple[Tuple[str, str, str, str, str], ...] = ()
    # Reader methods of families of classes its pipelines may call (dispatched_readers.Family.ask):
    # (method, sibling, the path and class of one of them, what they return: Family.kind).
    dispatched: Tuple[Tuple[str, str, str, str, str], ...] = ()
    dispatched_members: Tuple[Tuple[str, str], ...] = ()  # its own reader methods of such families: (class, method)
    star: Optional[star_imports.Patch] = None  # analysed as if its star import bound `tf` (star_imports)
    # Reader makers of the run whose call on any object makes one reader class (dispatched_readers.
    # maker_families): (method, a maker's path, its class).
    dispatched_makers: Tuple[Tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class _Done:
    """What a worker learnt about one file: its result, and what set-level work needs to know."""

    result: FileResult
    readable: bool = False  # a Python file that was read: a module a link may reach
    analysed: bool = False  # the analysis ran to the end (the counts below are its own)
    pipelines: int = 0
    remaining: int = 0  # queue calls left (plumbing aside)
    plumbing: bool = False  # has start_queue_runners / Coordinator calls
    summary: Optional[ModuleSummary] = None  # for linking; None when skipped or failed
    without_plumbing: Optional[FileResult] = None  # the result had its queue runners gone
    changed_helpers: Tuple[str, ...] = ()  # helpers whose signature the migration changed
    dataset_input_fns: Tuple[str, ...] = ()  # functions now giving an Estimator a Dataset (estimator_inputs)
    built: int = 0  # queue calls left that build queues when the program runs
    imported_used: Tuple[str, ...] = ()  # imported reader helpers every call of which was migrated
    record_attributes: Tuple[str, ...] = ()  # attributes that kept records, removed (guarded_records)
    returned_results: Tuple[Tuple[str, int, int], ...] = ()  # per-record results now of their own (returned_records)
    captured_params: Tuple[Tuple[str, str, int], ...] = ()  # parameters map functions capture (captured_params)
    drawn_params: Tuple[Tuple[str, str], ...] = ()  # (function, parameter) its map functions call (drawn_arguments)
    draws_failed: bool = False  # the draws asked of it were not made functions (drawn_arguments)
    handed_uses: Tuple[Tuple[str, int], ...] = ()  # calls migrated of batching helpers of other modules
    chained: Tuple[str, ...] = ()  # the parts of its chained_records ask it did
    chain_refused: Tuple[Tuple[str, str], ...] = ()  # (part, why) for the others
    reader_class_functions: Tuple[str, ...] = ()  # functions handing a reported reader class to a slim Dataset
    factories_used: Tuple[str, ...] = ()  # "function.object.method" of its provider factory calls migrated
    dispatched_used: Tuple[Tuple[str, int], ...] = ()  # (method, calls migrated) of dispatched reader methods
    dispatched_written: Tuple[str, ...] = ()  # its own reader methods of families migrated (`Class.method`)
    import_specs: Optional[ImportSpecs] = None  # what the module imports (first pass; None: not known)
    from_imports: Optional[handed_down.FromImports] = None  # its top-level `from` imports (likewise)
    # Its prefetch tower loops' calls as the result reports them, but for their reasons (first
    # pass, parse kept: the result a link that fails would give): (consumer index, template).
    reason_templates: Tuple[Tuple[int, engine.ReasonTemplate], ...] = ()
    device: bool = True  # whether its bytes say "device" (False only when read and known not to)


# What a worker parsed in the first pass, kept for a later pass over the same bytes (by path and
# digest): a module whose tower loops or migrated helpers set-level work may ask about again is
# then parsed once. Kept first come, first kept, each entry dropped when used, within two bounds:
# the source bytes kept (a parsed module holds some 60 times its source: libcst's module 0.47 MB
# for a 10 KB tower module, measured with tracemalloc; the stdlib tree, as large, is parsed again
# instead), and the process's resident memory, measured before each entry is kept (nothing more
# is kept once it passes memory.KEEP_BELOW_BYTES, so that a process stays under 300 MB whatever
# the rest of the run holds). A run over more than that parses the rest again in the later pass.
_PARSED: Dict[Tuple[str, str], engine.Parsed] = {}
_PARSED_BYTES = [0]
PARSED_SOURCE_BYTES = 2 * 1024 * 1024


def _keep_parsed(path: str, key: str, source: bytes, parsed: engine.Parsed) -> None:
    if _PARSED_BYTES[0] + len(source) > PARSED_SOURCE_BYTES or not memory.may_keep():
        return
    _PARSED[(path, key)] = parsed
    _PARSED_BYTES[0] += len(source)


def _kept_parsed(path: str, key: Optional[str], source: bytes) -> Optional[engine.Parsed]:
    parsed = _PARSED.pop((path, key), None) if key is not None else None
    if parsed is not None:
        _PARSED_BYTES[0] -= len(source)
    return parsed


def _run(job: _Job) -> _Done:
    """Read and (first pass) prefilter one file, then analyse, link-edit and verify it. Never raises."""
    path, options = job.path, job.options
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        return _Done(_failed(path, "cannot read: %s" % (error.strerror or error), failure=Failure.READ))
    python = not path.endswith(".ipynb")
    first_pass = job.digest is None and job.chain is None
    asked_draws = any(name == drawn_arguments.CALLER_KEY for name, _ in job.keep)  # (drawn_arguments)
    if first_pass and not asked_draws and not engine.may_contain_queue_code(source):
        # Nothing travels back but the verdict and what set-level work asks of every file
        # (its imports, read from its import lines; whether it may place towers on devices):
        # the linker reads such a file only if it must.
        return _Done(FileResult(path, Status.SKIPPED), readable=python, device=b"device" in source,
                     import_specs=quick_import_specs(source) if python else None)
    if not python:
        # A notebook is migrated as its code cells joined (notebooks.py); the run's results carry
        # that code until _as_notebooks turns them back into the notebook's bytes.
        if first_pass and not notebooks.calls_queue_api(source):
            return _Done(FileResult(path, Status.CLEAN, old_source=source))
        found, why = notebooks.virtual(source)
        if found is None:
            if not options.wants(NotebookNotMigrated.code):
                return _Done(FileResult(path, Status.CLEAN, old_source=source))
            return _Done(_notebook(path, source, why))
        source = found.code.encode("utf-8")
    original = source
    if python and job.star is not None:
        source = star_imports.patch(source, job.star) or source
    if not first_pass and job.digest is not None and digest(source) != job.digest:
        return _Done(_failed(path, "it changed while qmigrate ran; left unchanged", source), readable=True)
    problem = _undecodable(source)
    if problem:
        return _Done(_failed(path, "cannot decode: " + problem, source, Failure.UNDECODABLE))

    def work():
        parsed = _kept_parsed(path, job.digest, source)
        analysis, consumers = _analyse(path, source, options, job.plan, dict(job.keep), parsed, _foreign(job),
                                       job.handed, job.chain, job.uncalled)
        if job.drop_plumbing:
            engine.remove_plumbing(analysis, True, False)
        plumbing = any(rule in engine.PLUMBING for rule, _, _, _ in analysis.occurrences)
        first_pass = job.digest is None
        stats = dict(readable=True, analysed=True, device=b"device" in source, pipelines=analysis.pipelines,
                     remaining=analysis.remaining_queue_calls, plumbing=plumbing,
                     changed_helpers=tuple(analysis.changed_helpers), built=analysis.queues_built,
                     dataset_input_fns=tuple(sorted(set(analysis.dataset_input_fns))),
                     imported_used=tuple(analysis.imported_used),
                     record_attributes=tuple(analysis.record_attributes),
                     returned_results=tuple(sorted(set(analysis.returned_results))),
                     captured_params=tuple(sorted(set(analysis.captured_params))),
                     drawn_params=tuple(sorted(set(analysis.drawn_params))), draws_failed=analysis.draws_failed,
                     handed_uses=tuple(sorted(analysis.handed_uses.items())), chained=analysis.chained,
                     chain_refused=analysis.chain_refused,
                     reader_class_functions=analysis.reader_class_functions,
                     factories_used=analysis.factories_used, dispatched_used=analysis.dispatched_used,
                     dispatched_written=analysis.dispatched_written,
                     import_specs=import_specs(analysis.tree) if first_pass and analysis.tree is not None else None,
                     from_imports=handed_down.from_imports(analysis.tree) if first_pass and analysis.tree is not None
                     else None)
        problem = engine.verify(analysis)
        if problem:  # the file stays as it is; what its analysis found still counts for the set
            return _Done(_failed(path, problem, source, Failure.VERIFY), **stats)
        result, summary, without = analysis.result(), None, None
        # Queue runners stay while the module itself still builds queues (migrate() counts this
        # file's own queues among those its program leaves): then the result without them is
        # never asked for.
        if job.also_without_plumbing and plumbing and not stats["built"]:
            without = _without_plumbing(analysis)
        if job.digest is None:
            if consumers is None and b"device" in source:
                consumers = towers.find_consumers(analysis.module, analysis.imports)
            found = [ConsumerSummary(index, c.function, c.callee, c.kind, c.prefetch_call is not None, bool(c.loop_var))
                     for index, c in enumerate(consumers or ())]
            summary = summarise(path, source, analysis.tree, analysis.imports, analysis.pipeline_functions, found,
                                lambda name: rule_for(name) is not None)
            if (found or analysis.changed_helpers or analysis.dataset_input_fns) and not analysis.queues_moved:
                # a link plan or callers elsewhere may bring it back (a moved module is not this source's parse)
                _keep_parsed(path, summary.digest, source, engine.Parsed.of(analysis, consumers))
                stats["reason_templates"] = _reason_templates(analysis, consumers or ())
        return _Done(result, summary=summary, without_plumbing=without, **stats)

    done = _guarded(path, source, work)
    done = _Done(done, readable=True) if isinstance(done, FileResult) else done
    if source is not original:  # the user's file as it is: its star import's line back
        result = star_imports.unpatch(done.result, original, job.star)
        without = star_imports.unpatch(done.without_plumbing, original, job.star)
        if result is None or (done.without_plumbing is not None and without is None):
            return _run(dataclasses.replace(job, star=None))  # the migration changed that line: not this way
        done = dataclasses.replace(done, result=result, without_plumbing=without)
    return done


def _reason_templates(analysis: engine.FileAnalysis, consumers) -> Tuple[Tuple[int, engine.ReasonTemplate], ...]:
    """Where and how the result reports each prefetch tower loop's call, but for its reason. A
    later pass whose plan only gives those reasons would analyse this same parse, as it is, as
    this pass did (_later_passes)."""
    found = ((index, analysis.reason_template(consumer.prefetch_call)) for index, consumer in enumerate(consumers)
             if consumer.prefetch_call is not None)
    return tuple((index, template) for index, template in found if template is not None)


def _without_plumbing(analysis: engine.FileAnalysis) -> Optional[FileResult]:
    """The result once queue runners go (None if that fails: a third pass then says why)."""
    try:
        engine.remove_plumbing(analysis, True, False)
        problem = engine.verify(analysis)
    except Exception:
        return None
    return _failed(analysis.path, problem, analysis.source) if problem else analysis.result()


def _foreign(job: _Job) -> Optional[engine.ForeignHelpers]:
    """The reader helpers across modules a job asks for, read from their modules (None: none)."""
    if not job.imported and not job.migrate and not job.refused and not job.makers and not job.factories \
            and not job.dispatched and not job.dispatched_members and not job.dispatched_makers:
        return None
    imported, sources, makers = {}, {}, {}
    for local, where, name in job.makers:
        source = _read_python(where)
        found = engine.imported_reader_maker(source, local[:-len(name) - 1], name) if source is not None else None
        if found is not None:
            makers[local] = found
    for local, where, name in job.imported:
        source = _read_python(where)
        if source is None:
            continue
        if imported_helpers.is_method(name):  # `module.Class.method`: a record-source method
            found = engine.imported_record_source(source, local[:-len(name) - 1], name)
            if found is not None:
                sources[local] = found
            continue
        found = engine.imported_reader_helper(source, name)
        if found is not None:
            imported[local] = found
    dispatched = {}
    for method, sibling, where, class_name, kind in job.dispatched:
        source = _read_python(where)
        found = engine.imported_dispatched(source, class_name, method) if source is not None else None
        if found is not None:
            dispatched[method] = (found, sibling, kind)
    for method, where, class_name in job.dispatched_makers:
        source = _read_python(where)
        found = engine.imported_reader_maker(source, "", "%s.%s" % (class_name, method)) if source else None
        if found is not None:  # `x.method()`, x of any class of the run (dispatched_readers)
            makers["*." + method] = found
    return engine.ForeignHelpers(imported, sources, tuple(job.migrate), dict(job.refused), makers,
                                 {ask[:3]: ask[3:] for ask in job.factories}, dispatched, job.dispatched_members)


def _analyse(path: str, source: bytes, options: Options, plan: Optional[LinkPlan], keep: Dict[str, str],
             parsed: Optional[engine.Parsed] = None, foreign: Optional[engine.ForeignHelpers] = None,
             handed: Optional[handed_down.Handed] = None, chain: Optional[chained_records.Ask] = None,
             uncalled: Tuple[str, ...] = ()):
    """(analysis, the module's tower consumers or None if not looked for), with the plan applied
    and the helpers in `keep` kept as they are; from `parsed` (of these bytes), if given; with
    `foreign`'s reader helpers across modules."""
    if plan is None:
        return engine.analyse(path, source, options, keep_helpers=keep, parsed=parsed, foreign=foreign,
                              handed=handed, chain=chain, uncalled=uncalled), None
    if parsed is None:
        module, tree = engine.parse(source), stdlib_tree(source)
        imports = ImportMap(module, tree)
        consumers = towers.find_consumers(module, imports)
        if tree is not None:  # the analysis starts from these (one stdlib parse and import map, not two)
            parsed = engine.Parsed(module, tree, imports, consumers)
    else:
        module = parsed.module
        consumers = parsed.consumers
        if consumers is None:
            consumers = towers.find_consumers(module, parsed.imports)
    edits = towers.TowerEdits(set(plan.shard_functions), dict(plan.passthrough),
                              [consumers[index] for index in plan.consumers], plan.strategy)
    # The plan's reasons and findings are about nodes of `module`: it is analysed as it is.
    analysis = engine.analyse(path, source, options, module, edits, keep, parsed, move_queues=False,
                              foreign=foreign, handed=handed, chain=chain, uncalled=uncalled)
    for index, reason in plan.reasons.items():
        analysis.reasons[id(consumers[index].prefetch_call)] = reason
    for index, code, indexed in plan.findings:
        rule = SharedBatchAcrossTowers if code == SharedBatchAcrossTowers.code else PerTowerPipelines
        analysis.add_finding(rule, consumers[index].source_call, fixed=options.unsafe and indexed,
                             detail="" if indexed else UNINDEXED)
    return analysis, consumers


def migrate(paths: Iterable[str], options: Options = Options(), write: bool = False,
            include: Sequence[str] = (), exclude: Sequence[str] = (), jobs: int = 1,
            progress=None) -> List[FileResult]:
    """Analyse every file (in `jobs` processes); with `write`, replace the changed ones atomically.

    Results come in the order files were found. `progress(n)` is called as files complete.
    Never raises per file. Every file is analysed once; the few that set-level work changes
    (tower loops linked to their pipelines across modules, queue runners no queue needs any
    more) are analysed again with what it asks of them, in the workers too.
    """
    files = discover(paths, include, exclude)
    try:
        return _migrate(files, options, write, jobs, progress)
    finally:
        _PARSED.clear()  # what this process kept of this run (with -j 1, the workers' share)
        _PARSED_BYTES[0] = 0
        statement_memo.forget_all()


def _migrate(files: List[str], options: Options, write: bool, jobs: int, progress) -> List[FileResult]:
    # (workers forked inside it inherit the thresholds; _worker_loop sets them where they are not forked)
    with memory.fewer_collections(), _Pool(jobs) as pool:
        early = Program(files, _read_python)
        pool.stars = star_imports.plan(files, early)
        pool.makers = dispatched_readers.maker_families(files, early)
        first = dict(zip(files, pool.map(_run, [_Job(path, options) for path in files], progress)))
        program = Program(files, _read_python, {path: done.import_specs for path, done in first.items()
                                                if done.import_specs is not None})
        handed = _hand_down(files, first, options, pool, program)
        results: Dict[str, FileResult] = {path: done.result for path, done in first.items()}
        plans, summaries = _link(files, first, options, pool)
        digests = {path: summary.digest for path, summary in summaries.items() if summary is not None}
        relinked: Dict[str, _Done] = {}

        # Helpers other modules still call keep their signature: their modules are analysed again
        # knowing it (with their link plan, if any).
        keeps = _helpers_to_keep(first, program)
        makers = _makers_across_modules(first, summaries, digests, program)
        across = _helpers_across_modules(first, summaries, digests, program, keeps, plans, options, pool, makers)

        # Records returned through functions of several modules into a hand-built queue (chained_records).
        chains = chained_records.plan(files, program, lambda p: first[p].result.new_source if p in first else None,
                                      lambda p: p in first and first[p].remaining > 0)
        # Reader classes handed to a slim Dataset by functions no code calls (uncalled_datasets).
        uncalled = uncalled_datasets.functions(
            {path: done.reader_class_functions for path, done in first.items() if done.reader_class_functions},
            program)

        def later(path, **flags) -> _Job:
            """A pass after the first: the module's link plan, helpers kept (but those every caller
            migrates with: across.migrate) and cross-module asks."""
            migrating = set(across.migrate.get(path, ()))
            kept = tuple(sorted(item for item in keeps.get(path, {}).items() if item[0] not in migrating))
            return _Job(path, options, plans.get(path), digest=digests.get(path), keep=kept, handed=handed.get(path),
                        makers=makers.get(path, ()), chain=chains.get(path), uncalled=uncalled.get(path, ()),
                        **across.of(path), **flags)

        others = list(dict.fromkeys(list(plans) + list(keeps) + across.paths() + sorted(makers) + sorted(uncalled)))
        again = list(dict.fromkeys(others + sorted(chains)))
        for path, done in zip(again, _later_passes([later(path, also_without_plumbing=True) for path in again],
                                                   first, pool)):
            results[path] = done.result
            if done.analysed:
                relinked[path] = done

        def hold_draws():
            """A pipeline asked to call the draws its callers pass did not (it stays for another
            reason), or a caller's draws were not made functions (or its result went back to the
            first pass's): the callers pass their draws as before, and the pipelines stay saying
            why; each is analysed again."""
            undrawn = _draws_not_held(keeps, relinked)
            for path, done in zip(undrawn, pool.map(_run, [later(path, also_without_plumbing=True)
                                                          for path in undrawn])):
                results[path] = done.result
                relinked[path] = done

        hold_draws()
        if chains and not chained_records.held(chains, lambda p: relinked[p].chained if p in relinked and (
                relinked[p].result.status is not Status.FAILED) else None):
            # A part of a chain was not done: every module of every chain goes without them, and
            # the queues they fed say why.
            undone = sorted(chains)
            chains = chained_records.explained(
                chains, lambda p: dict(relinked[p].chain_refused) if p in relinked else {})
            redo = [path for path in undone if path in others or path in chains]
            for path in undone:
                results[path] = first[path].result
                relinked.pop(path, None)
            for path, done in zip(redo, pool.map(_run, [later(path, also_without_plumbing=True) for path in redo])):
                results[path] = done.result
                if done.analysed:
                    relinked[path] = done
        if not across.held(relinked):
            # A caller or helper did not migrate again as its probe did: all of them stay as the
            # first pass left them (none of them is linked: nothing else moves), but a helper
            # module that keeps helpers for other callers, which is analysed again keeping them.
            undone, across = across.paths(), imported_helpers.Jobs({}, {}, set(), {})
            for path in undone:
                results[path] = first[path].result
                relinked.pop(path, None)
            redo = [path for path in undone if path in keeps]
            for path, done in zip(redo, pool.map(_run, [later(path, also_without_plumbing=True) for path in redo])):
                results[path] = done.result
                if done.analysed:
                    relinked[path] = done
        if _handed_not_held(handed, first, relinked):
            # A caller that a helper was handed down to no longer migrates those calls (a helper
            # of its own is now kept for other modules): no helper is handed down, and every
            # module it concerned is analysed again without it.
            redo = sorted(handed)
            handed = {}
            for path, done in zip(redo, pool.map(_run, [later(path, also_without_plumbing=True) for path in redo])):
                results[path] = done.result
                first[path] = done
                relinked.pop(path, None)

        hold_draws()  # the steps above may have taken a caller or a pipeline back to its first pass

        # Provider factories of other modules whose providers a caller reads and batches: the
        # callers are analysed again with them, and take them only all together (provider_factories).
        factory_asks, factories, factory_of = provider_factories.plan(files, program, results, options.target)
        used_factories, factory_callers = set(), {}
        if factory_asks:
            asked = sorted(factory_asks)
            for path, done in zip(asked, pool.map(_run, [later(path, also_without_plumbing=True,
                                                               factories=factory_asks[path]) for path in asked])):
                if done.analysed and done.result.status is not Status.FAILED and set(done.factories_used) == {
                        ".".join(ask[:3]) for ask in factory_asks[path]}:
                    results[path] = done.result
                    relinked[path] = done
                    keys = {factory_of[(path,) + ask[:3]] for ask in factory_asks[path]}
                    used_factories |= keys
                    factory_callers[path] = keys

        # Reader methods chosen at run time: every class of the run that defines one is migrated
        # with all the calls of it, or none is (dispatched_readers).
        families, refused = dispatched_readers.plan(files, program, results)
        families = {method: family for method, family in families.items()
                    if not any(path in factory_callers for path, _ in family.calls)}  # (their asks are not redone)
        refused.update(_take_dispatched(families, results, relinked, later, pool, program))

        # Queue runners go from each program that builds no queue any more: the script and every
        # module of the set it imports, directly or not.
        migrated_any = any(done.pipelines for done in first.values()) or any(d.pipelines for d in relinked.values())

        def builds_queues(path):
            return relinked[path].built if path in relinked else first[path].built

        building = {path for path in first if builds_queues(path)}
        loaders = _saved_graph_loaders(program)
        standing = _standing_for(building, results, program, first, relinked)
        if migrated_any:
            candidates = [path for path, done in first.items()
                          if (relinked[path].plumbing if path in relinked else done.plumbing)
                          and results[path].status is not Status.FAILED]
            with_queues = _run_with_queues(program, set().union(*standing.values()), candidates, list(first))
            plumbing = []
            for path in candidates:
                if path in with_queues or _saved_graph_for(path, loaders, program) is not None \
                        or _library_start(path, program) is not None:
                    continue
                if path in relinked and relinked[path].without_plumbing is not None:
                    results[path] = relinked[path].without_plumbing
                else:
                    plumbing.append(path)
            for path, done in zip(plumbing, pool.map(_run, [later(path, drop_plumbing=True) for path in plumbing])):
                results[path] = done.result

        _explain_kept_plumbing(results, program, migrated_any, building, standing, loaders)
        _add_factory_siblings(results, first, factories, used_factories, factory_callers)
        _note_untraced_towers(results, first, plans, options, pool, program)
        _name_uncalled_functions(results, program)
        family_reasons.explain_results(results, refused, program)
        factory_reasons.explain_results(results, program)

    _as_notebooks(results)
    if write:
        for path, result in results.items():
            if result.changed:
                try:
                    atomic_write(path, result.new_source)
                except OSError as error:
                    results[path] = _failed(path, "cannot write: %s" % (error.strerror or error), result.old_source,
                                            Failure.WRITE)
    return [results[path] for path in files]


def _later_passes(jobs: List[_Job], first: Dict[str, _Done], pool: "_Pool") -> List[_Done]:
    """pool.map(_run, jobs), but for a job that asks nothing of its module but to say why its
    tower loops stay (their links failed): its second analysis would be its first again, whose
    result then takes those reasons (engine.ReasonTemplate)."""
    out: List[Optional[_Done]] = [None] * len(jobs)
    for index, job in enumerate(jobs):
        done = first.get(job.path)
        plan = job.plan
        if (plan is None or plan.edits or plan.findings or not plan.reasons or done is None or not done.analysed
                or done.result.status is Status.FAILED
                or job != _Job(job.path, job.options, plan, digest=job.digest,
                               also_without_plumbing=job.also_without_plumbing)):
            continue
        templates = dict(done.reason_templates)
        if not set(plan.reasons) <= set(templates):
            continue
        result = done.result
        for consumer, reason in plan.reasons.items():
            result = templates[consumer].apply(result, reason)
        out[index] = dataclasses.replace(done, result=result)
    rest = [index for index, done in enumerate(out) if done is None]
    for index, done in zip(rest, pool.map(_run, [jobs[index] for index in rest])):
        out[index] = done
    return out


def _take_dispatched(families: Dict[str, dispatched_readers.Family], results: Dict[str, FileResult],
                     relinked: Dict[str, _Done], later, pool, program) -> Dict[str, dispatched_readers.Refusal]:
    """The callers of each family's method analysed again with it; a family is taken only when
    every call of it in the run was migrated, by caller passes that took no call of a family not
    taken (a caller that did goes back to its result before). The modules of the taken families'
    classes are then analysed again migrating them (with their calls, if they are callers too):
    when every one wrote all it was asked, the callers' and those modules' results go in, else
    none does (each module's own analysis writes its classes, so the queue runners' step sees
    what it builds). Returns why each family not taken stays."""
    if not families:
        return {}
    asks: Dict[str, List[Tuple[str, ...]]] = {}
    for family in families.values():
        for path, _ in family.calls:
            asks.setdefault(path, []).append(family.ask)
    order = sorted(asks)
    done = dict(zip(order, pool.map(_run, [later(path, also_without_plumbing=True, dispatched=tuple(asks[path]))
                                           for path in order])))
    used = {path: dict(d.dispatched_used) if d.analysed and d.result.status is not Status.FAILED else {}
            for path, d in done.items()}
    refused = _first_stays(families, lambda method, path, count: used[path].get(method, 0) != count, program)
    failed = set(refused)
    while True:
        reverted = {path for path in order
                    if any(used[path].get(ask[0]) and ask[0] in failed for ask in asks[path])}
        more = _first_stays({method: family for method, family in families.items() if method not in failed},
                            lambda method, path, count: path in reverted, program)
        if not more:
            break
        failed |= set(more)
        refused.update(more)
    taken = [family for method, family in sorted(families.items()) if method not in failed]
    callers = {path for path in order if path not in reverted and any(used[path].get(ask[0]) for ask in asks[path])}
    wanted: Dict[str, List[Tuple[str, str]]] = {}
    for family in taken:
        for member in family.members:
            wanted.setdefault(member.path, []).append((member.class_name, member.method))
    if not wanted:
        return refused
    paths = sorted(wanted)
    written = dict(zip(paths, pool.map(_run, [later(
        path, also_without_plumbing=True, dispatched_members=tuple(wanted[path]),
        dispatched=tuple(ask for ask in asks[path] if ask[0] not in failed) if path in callers else ())
        for path in paths])))
    for path, members in wanted.items():
        d = written[path]
        if not (d.analysed and d.result.status is not Status.FAILED
                and set(d.dispatched_written) == {"%s.%s" % member for member in members}
                and (path not in callers or dict(d.dispatched_used) == used[path])):
            # (not written as the plan proved it could be: nothing of the families changes)
            return dict(refused, **{family.method: dispatched_readers.Refusal(
                family.method, path, 0, "%s was not rewritten as its proof planned: no class goes") for family in taken})
    for path in callers:
        results[path], relinked[path] = done[path].result, done[path]
    for path in paths:
        results[path], relinked[path] = written[path].result, written[path]
    return refused


def _first_stays(families: Dict[str, dispatched_readers.Family], stays, program) -> Dict[str, dispatched_readers.Refusal]:
    """method -> why it stays, for each family with a caller whose calls `stays(method, path, count)`."""
    refused = {}
    for method, family in families.items():
        path = next((path for path, count in family.calls if stays(method, path, count)), None)
        if path is not None:
            refused[method] = dispatched_readers.untaken(family, path, program)
    return refused


def _add_factory_siblings(results: Dict[str, FileResult], first: Dict[str, _Done], factories, used, callers) -> None:
    """Each provider factory a caller took gets its sibling, after its method, in its module's
    final source; the provider it returns stays, saying who calls the sibling instead. Should a
    sibling not go in, its callers go back to their first pass's result (which never calls it)."""
    failed = set()
    for key in sorted(used):
        factory = factories[key]
        result = results[factory.path]
        try:
            new = provider_factories.with_sibling(result.new_source or result.old_source, factory)
        except Exception:  # it parsed and compiled in the module as it was
            new = None
        if new is None:
            failed.add(key)
            continue
        results[factory.path] = dataclasses.replace(
            result, new_source=new, status=Status.PARTIAL if result.status is not Status.FAILED else result.status,
            diagnostics=tuple(factory_reasons.kept_provider(d, factory) for d in result.diagnostics))
    for path, keys in callers.items():
        if keys & failed:
            results[path] = first[path].result


# What loads Python modules by name or path at run time: importlib, __import__, the old `imp`
# module's loaders (2016-era evaluation scripts load their input module by path), runpy, Python 2's
# execfile. Not `imp.load_dynamic`, which loads a compiled extension.
_DYNAMIC_IMPORT = re.compile(rb"\bimportlib\b|\b__import__\b|\bimp\.load_(?:source|module|package|compiled)\b|"
                             rb"\bfrom imp import\b|\brunpy\b|\bexecfile\s*\(")


def _run_with_queues(program: "Program", building: Set[str], candidates: List[str], paths: List[str]) -> Set[str]:
    """The `candidates` that may run in a program that still builds queues: a file S imports the
    candidate, directly or not (or is it), and S's imports, directly or not, build queues (so does
    a file an import of a package the run holds only part of may load), since a helper's
    start_queue_runners runs in the program of whichever script imports it. A file that imports
    modules dynamically counts as importing every file for its own sake (what it loads is
    unknown), but does not pass that on to what it imports: only its static imports do (else one
    importlib in a repository would keep every queue runner of it). Two walks over the import
    graph, linear in the run's size (Program reads the imports of a file no worker parsed from
    its import lines alone)."""
    if not building or not candidates:
        return set()
    dynamic = [path for path in paths if _DYNAMIC_IMPORT.search(program.source(path) or b"")]
    with_queues = reach(list(building) + dynamic, program.importers)
    return reach(with_queues, lambda path: program.imported(path, partial=True)) & set(candidates)


def _saved_graph_loaders(program: Program) -> Dict[str, Tuple[int, str, Optional[str]]]:
    """path -> (line, call, the function holding it or None) of the first saved graph each file
    of the run imports (saved_graphs)."""
    found = {}
    for path in sorted(set().union(*(program.files_mentioning(word) for word in saved_graphs.WORDS))):
        load = saved_graphs.first_load(program.source(path))
        if load is not None:
            found[path] = load + (saved_graphs.holder(program.tree(path), load[0]),)
    return found


def _saved_graph_for(path: str, loaders: Dict[str, Tuple[int, str, Optional[str]]], program: Program) -> Optional[str]:
    """Why the file's queue runners stay for a saved graph the program imports (None: no such
    graph): the file imports one, or imports the module of a function that does, directly or not,
    and refers to that function (Program.refers: its own function of that name is not it; an
    import at module level: importing the module is enough). The runners a start call starts are those of its session's graph: a library that
    imports a graph into a graph of its own, called by no code of the file, keeps no runner of it."""
    if path in loaders:
        return saved_graphs.reason(*loaders[path][:2])
    folder = os.path.dirname(path)
    for loader, (line, what, holder) in sorted(loaders.items()):
        # (the file imports the loader's module, directly or not: a function of that name elsewhere is not it)
        if loader in program.closure(path, partial=True) and (holder is None or program.refers(path, holder)):
            return saved_graphs.reason(line, what, os.path.relpath(loader, folder) + ":", holder)
    return None


def _standing_for(building: Set[str], results: Dict[str, FileResult], program: Program,
                  first: Dict[str, "_Done"], relinked: Dict[str, "_Done"]) -> Dict[str, Set[str]]:
    """File that still builds queues -> the files whose programs build them (uncalled_queues):
    itself, or the files that name the top-level functions holding its queue code. A file with
    queue runners of its own stands for itself."""
    def own_plumbing(path):
        return (relinked[path] if path in relinked else first[path]).plumbing

    return uncalled_queues.stand_ins(
        sorted(building), lambda path: [d.line for d in _queue_code_left(results[path])],
        {path for path in building if own_plumbing(path)}, program.tree, program.files_mentioning, program.mentions)


def _explain_kept_plumbing(results: Dict[str, FileResult], program: Program, migrated_any: bool,
                           building: Set[str], standing: Dict[str, Set[str]],
                           loaders: Dict[str, Tuple[int, str, Optional[str]]]) -> None:
    """Queue runners and coordinators kept for the run's reason (engine.PLUMBING_KEPT, which names
    both) say which: no pipeline of the run was migrated, this file still builds queues, or a
    file of its program does (the first such one, by its first call left: a script that imports
    this file, directly or not, also imports that one, or loads modules by name)."""
    for path, result in list(results.items()):
        kept = [d for d in result.diagnostics if not d.fixed and engine.PLUMBING_KEPT in d.message]
        if not kept:
            continue
        if not migrated_any and _coordinators_only(result, kept, path, program, building):
            results[path] = _as_notes(result, kept, "no file of its program among those migrated together builds "
                                      "queues, and it works without queue runners")
            continue
        if not migrated_any:
            why = ("no pipeline of the files migrated together was migrated: the queues of its program (in them, or "
                   "in modules not among them) still need them")
        elif path in building or _queue_code_left(result):
            why = "queue code is left in this file"
        else:
            why = _saved_graph_for(path, loaders, program)
            library = _library_start(path, program) if why is None else None
            if library is not None:  # the runners are its users' (none start where they build no queue)
                results[path] = _as_notes(result, kept, library)
                continue
            why = why or _program_queue_reason(path, results, program, building, standing)
        results[path] = dataclasses.replace(result, diagnostics=tuple(
            dataclasses.replace(d, message=d.message.replace(engine.PLUMBING_KEPT, why)) if d in kept else d
            for d in result.diagnostics))


def _library_start(path: str, program: Program) -> Optional[str]:
    """Why a module of a shipped package keeps the queue runners its public functions start for
    callers outside the run (library_runners); None when it need not."""
    source = program.source(path)
    if source is None or not (b"start_queue_runners" in source or b"QueueRunners" in source):
        return None
    return library_runners.reason(path, program.tree(path))


def _program_queue_reason(path: str, results: Dict[str, FileResult], program: Program, building: Set[str],
                          standing: Dict[str, Set[str]]) -> str:
    """Why a file's runners stay for its program: the first queue code left in a file whose queues
    a file of its program builds (`standing`), or, with none, a module it may load by name."""
    program_files = reach(reach([path], program.importers), lambda p: program.imported(p, partial=True))
    left = sorted((d for other in building if other != path and other in results
                   and standing.get(other, {other}) & program_files
                   for d in _queue_code_left(results[other])), key=Diagnostic.sort_key)
    if left:
        return "queue code is left in a file of its program: %s:%d (%s)" % (
            os.path.relpath(left[0].path, os.path.dirname(path)), left[0].line, left[0].code)
    return ("queue code is left in the run, in a module a file of its program may load by name at run time "
            "(importlib, imp, runpy)")


_PLUMBING_CODES = frozenset(rule.code for rule in engine.PLUMBING)
# Findings left in a file that are not queue code: a TensorFlow API its target lacks
# (`tf.scalar_summary`) is the file's to fix whether or not any queue is left.
_NOT_QUEUE_CODES = frozenset((ApiNotInTarget.code,))


def _queue_code_left(result: FileResult) -> List[Diagnostic]:
    """The findings the run leaves in the file that are queue code (not its runner plumbing)."""
    return [d for d in result.remaining if d.code not in _PLUMBING_CODES and d.code not in _NOT_QUEUE_CODES]


def _coordinators_only(result: FileResult, kept: List[Diagnostic], path: str, program: Program,
                       building: Set[str]) -> bool:
    """Whether all the file leaves is Coordinators (no runner start, no queue code) and no file of
    its program in the run builds queues: what a re-run finds in a migration's output, where a
    coordinator stays for the error it carries to join() or for uses beyond the runners."""
    if any(d.code != engine.queue_runners.Coordinator.code for d in kept) \
            or len([d for d in result.remaining if d.code not in _NOT_QUEUE_CODES]) != len(kept):
        return False
    if path in building or not _coordinators_stay_in_the_run(path, program):
        return False
    program_files = reach(reach([path], program.importers), lambda p: program.imported(p, partial=True))
    return not (program_files & building)


def _coordinators_stay_in_the_run(path: str, program: Program) -> bool:
    """Whether every `x = ...Coordinator(...)` of the file is used only by its own methods or
    handed to functions and classes of the run (defined in the file, or imported from a file of
    the run): code outside it may start queue runners with the coordinator."""
    tree = program.tree(path)
    if tree is None:
        return False
    names = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
             and getattr(node.value.func, "attr", getattr(node.value.func, "id", None)) == "Coordinator"
             for target in node.targets if isinstance(target, ast.Name)}
    if not names:
        return False
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if program.module_path(path, node.module) is not None:
                defined |= {alias.asname or alias.name for alias in node.names}
    allowed: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
            allowed.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defined:
            allowed |= {id(value) for value in list(node.args) + [k.value for k in node.keywords]
                        if isinstance(value, ast.Name) and value.id in names}
    return all(id(node) in allowed for node in ast.walk(tree)
               if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load))


def _as_notes(result: FileResult, kept: List[Diagnostic], why: str) -> FileResult:
    """The result with the `kept` findings said as notes asking for no change (engine's
    kept_as_notes wording), and its status as the notes make it."""
    notes = {d: dataclasses.replace(d, note=True, message=d.message.split("; not rewritten: ")[0]
                                    + "; no change needed: " + why) for d in kept}
    diagnostics = tuple(notes.get(d, d) for d in result.diagnostics)
    return dataclasses.replace(result, diagnostics=diagnostics, status=engine.status_of(diagnostics, result.changed))


def _name_uncalled_functions(results: Dict[str, FileResult], program: Program) -> None:
    """A reason saying that a function returns its records to callers qmigrate did not link to
    it says, when no module of the run calls or names it (its own module neither), that it stays
    as public API (unlinked.uncalled)."""
    for path, result in list(results.items()):
        asked = {unlinked.returned_to(d.message) for d in result.remaining} - {None}
        if not asked:
            continue
        names = program.names_in(path)
        uncalled = {name for name in asked
                    if names.parsed and next(program.referring_files(name.rsplit(".", 1)[-1], path), None) is None
                    and not names.uses(name.rsplit(".", 1)[-1])}
        if uncalled:
            results[path] = dataclasses.replace(result, diagnostics=tuple(
                dataclasses.replace(d, message=unlinked.uncalled(d.message))
                if not d.fixed and not d.note and unlinked.returned_to(d.message) in uncalled else d
                for d in result.diagnostics))


def _note_untraced_towers(results: Dict[str, FileResult], first: Dict[str, _Done], plans, options: Options,
                          pool, program) -> None:
    """A note on every tower loop of a module with no queue code of its own (and no link reaching
    it), when the run leaves queue-based input behind: those towers may read that input through
    code qmigrate does not follow, and will need one shard each once it is migrated. A loop whose
    towers index lists passed to its class or function names what the run's calls pass there."""
    if not options.wants(UntracedTowerInput.code):
        return
    left = sorted((d for result in results.values() for d in result.remaining), key=Diagnostic.sort_key)
    message = UntracedTowerInput.message_at
    if not left:
        # All of the run's queue input migrated: the loop may read it, sharded or not.
        plumbing = {rule.code for rule in engine.PLUMBING}
        left = sorted((d for result in results.values() for d in result.diagnostics
                       if d.fixed and not d.note and d.code not in plumbing), key=Diagnostic.sort_key)
        message = UntracedTowerInput.message_after_migration
    if not left:
        return
    candidates = [path for path, result in results.items()
                  if result.status in (Status.SKIPPED, Status.CLEAN) and path not in plans and path.endswith(".py")
                  and first[path].device]
    for path, loops in zip(candidates, pool.map(_tower_loops, candidates)):
        if not loops:
            continue
        # The first call left, by its path from the module's folder: the same in every checkout.
        where = "%s:%d (%s)" % (os.path.relpath(left[0].path, os.path.dirname(path)), left[0].line, left[0].code)
        notes = tuple(Diagnostic(path, line, column, UntracedTowerInput.code,
                                 message(header, where, len(left), _with_callers(reads, path, program)),
                                 safety=UntracedTowerInput.safety, note=True)
                      for line, column, header, reads in loops)
        result = results[path]
        results[path] = dataclasses.replace(result, diagnostics=tuple(sorted(
            result.diagnostics + notes, key=Diagnostic.sort_key)))


def _with_callers(reads, path: str, program):
    """`reads` (tower_reads.TowerReads, or None) with what the run's calls of the lists' owner pass
    for them: calls in `path` and in the files that import it (parsed here, in the parent: a
    run has few such loops)."""
    if reads is None or not reads.passed:
        return reads
    owner = next(owner for owner, _ in reads.origins if owner).encode()
    sources = {}
    for other in program.paths:
        if other != path and path not in program.imports(other):
            continue
        source = program.source(other)
        tree = stdlib_tree(source) if source is not None and owner + b"(" in source else None
        if tree is not None:
            sources[other] = tree
    return dataclasses.replace(reads, callers=tower_reads.calls_passing(reads, sources, path))


def _tower_loops(path: str):
    """The device-placing loops of one file (in a worker): [] when it cannot be read."""
    source = _read_python(path)
    if source is None or b"device" not in source:
        return []
    return untraced_towers.tower_loops(source, UntracedTowerInput.code)


class _Pool:
    """function over a list, in order: in `jobs` worker processes kept for the whole run when jobs > 1.

    A file goes back to the worker that read it in an earlier pass, which may still hold what it
    parsed then (_PARSED). Work is handed out a chunk at a time as workers finish theirs (chunks
    of a quarter of each worker's share of the work left, 1 to 32 jobs): a
    worker's own files first, then files nobody has seen, then another worker's (no worker idles
    while another has a queue; a file taken that way is parsed again).
    """

    def __init__(self, jobs: int):
        self.jobs = jobs
        self._workers = []  # (process, connection)
        self._home: Dict[str, int] = {}  # path -> the worker that last handled it
        # Modules whose `tf` is TensorFlow through star imports of the run (star_imports.py): each
        # job of such a module, whatever its pass, is given its patch here.
        self.stars: Dict[str, star_imports.Patch] = {}
        # Modules that call reader makers of the run on objects of unknown classes (dispatched_readers.
        # maker_families): each job of such a module, whatever its pass, is given them here.
        self.makers: Dict[str, Tuple[Tuple[str, str, str], ...]] = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for process, connection in self._workers:
            try:
                connection.send(None)
            except OSError:
                pass
        for process, connection in self._workers:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
            connection.close()
        self._workers = []

    def _start(self):
        if self._workers:
            return
        context = multiprocessing.get_context()
        for _ in range(self.jobs):
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker_loop, args=(theirs,), daemon=True)
            process.start()
            theirs.close()
            self._workers.append((process, mine))

    def map(self, function, jobs_list, progress=None) -> list:
        out = []
        if self.stars:
            jobs_list = [dataclasses.replace(item, star=self.stars[item.path])
                         if isinstance(item, _Job) and item.path in self.stars else item for item in jobs_list]
        if self.makers:
            jobs_list = [dataclasses.replace(item, dispatched_makers=self.makers[item.path])
                         if isinstance(item, _Job) and item.path in self.makers else item for item in jobs_list]
        # One job runs here unless the workers are up: its file's worker may still hold its parse.
        if self.jobs <= 1 or not jobs_list or (len(jobs_list) < 2 and not self._workers):
            for item in jobs_list:
                out.append(function(item))
                if progress:
                    progress(1)
            return out
        self._start()
        # Chunks shrink as the work left does (guided scheduling): at the end no worker waits long
        # for another's last chunk.
        workers = len(self._workers)
        own = [collections.deque() for _ in self._workers]
        unseen = collections.deque()
        for index, item in enumerate(jobs_list):
            home = self._home.get(_path_of(item))
            (own[home] if home is not None else unseen).append(index)

        def next_chunk(worker):
            chunk = []
            left = len(unseen) + sum(len(queue) for queue in own)
            chunksize = max(1, min(32, left // (workers * 4)))
            while len(chunk) < chunksize:
                if own[worker]:
                    chunk.append(own[worker].popleft())
                elif unseen:
                    chunk.append(unseen.popleft())
                else:
                    busiest = max(range(len(own)), key=lambda w: len(own[w]))
                    if not own[busiest]:
                        break
                    chunk.append(own[busiest].pop())  # from the end: its owner works from the start
            return chunk

        results = [None] * len(jobs_list)
        busy: Dict[int, List[int]] = {}
        for worker in range(len(self._workers)):
            self._send(worker, function, next_chunk(worker), jobs_list, busy)
        connections = {connection: worker for worker, (_, connection) in enumerate(self._workers)}
        sentinels = {process.sentinel: worker for worker, (process, _) in enumerate(self._workers)}
        while busy:
            for ready in multiprocessing.connection.wait(list(connections) + list(sentinels)):
                worker = connections.get(ready)
                if worker is None or worker not in busy:
                    if sentinels.get(ready) in busy:
                        raise RuntimeError("a qmigrate worker process died")
                    continue
                try:
                    failed, answers = ready.recv()
                except EOFError:
                    raise RuntimeError("a qmigrate worker process died")
                if failed:
                    raise answers
                for index, answer in zip(busy.pop(worker), answers):
                    results[index] = answer
                    self._home[_path_of(jobs_list[index])] = worker
                    if progress:
                        progress(1)
                self._send(worker, function, next_chunk(worker), jobs_list, busy)
        return results

    def _send(self, worker, function, chunk, jobs_list, busy):
        if chunk:
            busy[worker] = chunk
            self._workers[worker][1].send((function, [jobs_list[index] for index in chunk]))


def _path_of(item) -> Optional[str]:
    return item.path if isinstance(item, _Job) else item if isinstance(item, str) else None


def _worker_loop(connection) -> None:
    """A worker: (function, items) in, (failed, results or the exception) out, until None comes.

    One chunk at a time, its answer sent before the next is read: neither side ever writes while
    the other does. Ctrl-C is the parent's to handle (it ends the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.set_threshold(*memory.RUN_THRESHOLDS)
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        function, items = message
        try:
            answer = (False, [function(item) for item in items])
        except Exception as error:  # raised in the parent, as the executor did
            answer = (True, error)
        connection.send(answer)


def _hand_down(files: List[str], first: Dict[str, _Done], options: Options, pool: "_Pool",
               program: Program) -> Dict[str, handed_down.Handed]:
    """Batching helpers of other modules that the first pass left unlinked (handed_down.py): the
    importers analysed again with them, and the helpers' modules once every call was migrated.
    `first` then holds those passes (as first passes: later passes build on them); returns what
    each module was asked, for the later passes."""
    planner = handed_down.Planner(program, lambda p: p in first and first[p].analysed,
                                  lambda p: first[p].remaining > 0, lambda p: first[p].from_imports)
    candidates = planner.candidates([path for path in files if path.endswith(".py")])
    if not candidates:
        return {}
    importers, asked, done = candidates, {}, {}
    for _ in range(handed_down.MAX_ROUNDS):
        asked = handed_down.handed_for(importers, exported=False)
        paths = sorted(asked)
        done = dict(zip(paths, pool.map(_run, [_Job(path, options, handed=asked[path]) for path in paths])))
        uses = {path: dict(d.handed_uses) for path, d in done.items() if d.analysed}
        accepted = planner.accepted(importers, uses)
        if accepted == importers:
            break
        importers = {path: names for path, names in accepted.items() if names}
    else:
        importers = {}  # no settled set of callers: none is followed
    handed = planner.settled(candidates, importers)
    again = [path for path in sorted(handed) if handed[path] != asked.get(path)]
    done = {path: d for path, d in done.items() if path in handed}
    done.update(zip(again, pool.map(_run, [_Job(path, options, handed=handed[path]) for path in again])))
    if any(not d.analysed or d.result.status is Status.FAILED for d in done.values()):
        return {}  # all of it or nothing: a helper migrated without its callers, or the reverse, is wrong
    first.update(done)
    return handed


def _handed_not_held(handed: Dict[str, handed_down.Handed], first: Dict[str, _Done],
                     relinked: Dict[str, _Done]) -> bool:
    """Whether a module analysed again after the hand-down (relinked) migrated fewer calls of the
    helpers handed down to it than when they were settled (first)."""
    for path, asked in handed.items():
        if asked.imported and path in relinked and dict(relinked[path].handed_uses) != dict(first[path].handed_uses):
            return True
    return False


def _read_python(path: str) -> Optional[bytes]:
    """A file's bytes (a notebook's code cells, as its module), for set-level questions about
    modules the workers did not send back."""
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError:
        return None
    if path.endswith(".ipynb"):
        found, _ = notebooks.virtual(source)
        return found.code.encode("utf-8") if found is not None else None
    return source


def _helpers_to_keep(first: Dict[str, _Done], program: Program) -> Dict[str, Dict[str, str]]:
    """path -> {helper: who else calls it} for migrated helpers that other modules of the set refer
    to: their signature must stay, so the pipelines call a migrated copy instead."""
    keeps: Dict[str, Dict[str, str]] = {}
    bindings = captured_params.StatefulBindings(program.paths, program.mentions, program.source, program.tree)
    for path, done in first.items():
        _keep_record_attributes(path, done, program, keeps)
        _keep_returned_results(path, done, program, keeps)
        _keep_captured_params(path, done, program, keeps, bindings)
        if graph_copies.imports_edward(program.tree(path) if b"edward" in (program.source(path) or b"") else None):
            for other in sorted(program.closure(path) - {path}):  # their batches may reach its model
                if other in first and first[other].pipelines:
                    keeps.setdefault(other, {}).setdefault(graph_copies.KEPT_KEY,
                                                           graph_copies.imported_reason(other, path))
        for name in done.changed_helpers:
            # A reading method (`Class.method`) is referred to by its own name, as an attribute.
            found = program.references(name.rsplit(".", 1)[-1], path,
                                       method_of=name.split(".")[-2] if "." in name else None)
            if found:
                places = ["%s:%d" % (os.path.basename(where), line) for where, line in found]
                more = " and %d more" % (len(places) - 3) if len(places) > 3 else ""
                keeps.setdefault(path, {})[name] = "its callers in other modules (%s%s)" % (
                    ", ".join(places[:3]), more)
        for name in done.dataset_input_fns:  # other code may unpack tensors from it: it keeps giving them
            found = program.references(name, path)
            if found:
                places = ", ".join("%s:%d" % (os.path.basename(where), line) for where, line in found[:3])
                keeps.setdefault(path, {})[estimator_inputs.KEPT_PREFIX + name] = "other modules name it (%s)" % places
    return keeps


def _makers_across_modules(first: Dict[str, _Done], summaries, digests: Dict[str, str],
                           program: Program) -> Dict[str, Tuple[imported_helpers.Import, ...]]:
    """path -> the reader makers of other modules' classes it may call (imported_helpers.maker_imports),
    for the modules that still build queues: they are analysed again knowing them."""
    callers = [path for path, done in first.items() if done.analysed and done.remaining and path in digests]
    found = imported_helpers.maker_imports(callers, summaries, program)
    return {path: tuple(entry for entry in imports if entry[1] in digests) for path, imports in found.items()
            if any(entry[1] in digests for entry in imports)}


def _helpers_across_modules(first: Dict[str, _Done], summaries, digests: Dict[str, str], program: Program,
                            keeps, plans, options: Options, pool, makers=None) -> imported_helpers.Jobs:
    """What reader helpers across modules ask of each module (imported_helpers' steps: the callers
    are analysed once more to learn which helpers their pipelines call at every call). Modules
    with helpers kept for other callers, or a link plan, take no part."""
    callers = [path for path, done in first.items()
               if done.analysed and done.remaining and path in digests and path not in keeps
               and path not in plans]
    wanted = imported_helpers.candidates(callers, summaries, program)
    # A helper module keeps its migrated helpers' signatures for the callers other modules have
    # (and calls migrated copies): where those callers migrate with the helper, it need not.
    wanted = {path: [entry for entry in imports
                     if entry[1] in digests and entry[1] not in plans and (
                         entry[1] not in keeps or _only_helpers_kept(keeps[entry[1]]))]
              for path, imports in wanted.items()}
    wanted = {path: tuple(imports) for path, imports in wanted.items() if imports}
    if not wanted:
        return imported_helpers.Jobs({}, {}, set(), {})
    order = sorted(wanted)
    probes = pool.map(_run, [_Job(path, options, digest=digests[path], imported=wanted[path],
                                  makers=(makers or {}).get(path, ())) for path in order])
    used = {path: done.imported_used for path, done in zip(order, probes)}
    for path, done in zip(order, probes):
        if _keep_record_attributes(path, done, program, keeps):
            used[path] = ()  # its chains stay as they are: so do the helpers they call
    changed = {path: done.changed_helpers for path, done in first.items()}
    migrated, why = imported_helpers.decide(wanted, used, program, changed)
    return imported_helpers.Jobs(wanted, used, migrated, why)


def _draws_not_held(keeps: Dict[str, Dict[str, str]], relinked: Dict[str, "_Done"]) -> List[str]:
    """The modules to analyse again when a pipeline asked to call its callers' draws did not, or
    a caller's draws were not made functions (drawn_arguments): then no draw is asked of any
    module (which caller's draws are for which pipeline is not kept), and every pipeline asked
    stays, saying why (`keeps` is changed so)."""
    asked = {(path, name[len(drawn_arguments.CALLEE_PREFIX):], param)
             for path, keep in keeps.items() for name, params in keep.items()
             if name.startswith(drawn_arguments.CALLEE_PREFIX) for param in params.split(",")}
    callers = {path for path, keep in keeps.items() if drawn_arguments.CALLER_KEY in keep}
    held = all(path in relinked and (function, param) in relinked[path].drawn_params
               for path, function, param in asked) and all(
        path in relinked and not relinked[path].draws_failed for path in callers)
    if held:
        return []
    for path, function, _ in asked:
        keeps[path].pop(drawn_arguments.CALLEE_PREFIX + function, None)
        keeps[path][captured_params.KEPT_PREFIX + function] = (
            "the per-record code reads a parameter of %s() for which callers in other modules pass a random draw, "
            "and the pipeline could not take it as a function that draws for each record" % function)
    for path in callers:
        keeps[path].pop(drawn_arguments.CALLER_KEY)
    return sorted({path for path, _, _ in asked} | callers)


def _only_helpers_kept(keep: Dict[str, str]) -> bool:
    """Whether a module keeps nothing but migrated helpers' signatures (not attributes, returned
    records, captured parameters or input functions) for other modules' callers."""
    prefixes = (".", returned_records.KEPT_PREFIX, captured_params.KEPT_PREFIX, estimator_inputs.KEPT_PREFIX,
                graph_copies.KEPT_KEY, drawn_arguments.CALLEE_PREFIX, drawn_arguments.CALLER_KEY)
    return not any(name.startswith(prefixes) for name in keep)


def _keep_returned_results(path: str, done: _Done, program: Program, keeps: Dict[str, Dict[str, str]]) -> None:
    """Add to `keeps` the functions whose returned per-record structure a caller in another module
    may use: their pipelines stay (returned_records)."""
    for name, position, arity in done.returned_results:
        found = returned_records.elsewhere(program.files_mentioning, path, program.mentions, program.tree, name,
                                           position, arity)
        if found is not None:
            keeps.setdefault(path, {})[returned_records.KEPT_PREFIX + name] = returned_records.kept_reason(*found)


def _keep_captured_params(path: str, done: _Done, program: Program, keeps: Dict[str, Dict[str, str]],
                          bindings: captured_params.StatefulBindings) -> None:
    """Add to `keeps` the functions whose pipelines capture a parameter that a caller in another
    module may pass a stateful value for: their pipelines stay (captured_params)."""
    if not done.captured_params:
        return
    drawn: Dict[Tuple[str, str], Dict[str, Tuple[int, ...]]] = {}
    refused = captured_params.elsewhere(program.files_mentioning, path, program.mentions, program.tree,
                                        done.captured_params, lambda caller: program.closure(caller, partial=True),
                                        program.related, bindings, drawn)
    for function, why in refused.items():
        keeps.setdefault(path, {})[captured_params.KEPT_PREFIX + function] = why
    for (function, param), callers in sorted(drawn.items()):  # callers pass random draws: made functions
        asked = keeps.setdefault(path, {})
        key = drawn_arguments.CALLEE_PREFIX + function
        asked[key] = ",".join(sorted(set(asked.get(key, "").split(",")) - {""} | {param}))
        for caller, lines in callers.items():
            made = keeps.setdefault(caller, {})
            made[drawn_arguments.CALLER_KEY] = ",".join(str(line) for line in sorted(
                {int(line) for line in made.get(drawn_arguments.CALLER_KEY, "").split(",") if line} | set(lines)))


def _keep_record_attributes(path: str, done: _Done, program: Program, keeps: Dict[str, Dict[str, str]]) -> bool:
    """Add to `keeps` the attributes that kept records in `path`, which its migration removed, when
    other modules mention them (they may read the records); whether any was added."""
    added = False
    for attr in done.record_attributes:
        found = program.attribute_mentions(attr, path)
        owners = fresh_receivers.classes_defining(program.tree(path), attr) if found else set()
        if owners:  # a method: its calls each on an object made for it share no records
            fresh = set()
            for where in sorted({where for where, _ in found}):  # one module that is not settles it
                if not fresh_receivers.each_on_a_new_object(program.tree(where), attr, owners):
                    break
                fresh.add(where)
            found = [(where, line) for where, line in found if where not in fresh]
        if found:
            places = ", ".join("%s:%d" % (os.path.basename(where), line) for where, line in found[:3])
            keeps.setdefault(path, {})["." + attr] = "other modules mention `.%s` (%s)" % (attr, places)
            added = True
    return added


def _summarise_file(path: str) -> Optional[ModuleSummary]:
    """The summary of a file the prefilter skipped, which a link has reached (None: unusable)."""
    try:
        with open(path, "rb") as handle:
            return summarise_source(path, handle.read())
    except Exception:  # unreadable or unparsable: links stop there, as at any module outside the set
        return None


def _notebook(path: str, source: bytes, why: str) -> FileResult:
    """A notebook qmigrate does not migrate is reported, never passed over in silence."""
    rule = NotebookNotMigrated
    finding = Diagnostic(path, 1, 1, rule.code, "%s; not rewritten: %s; to do: %s" % (rule.message, why, rule.advice),
                         False, rule.safety)
    return FileResult(path, Status.DIAGNOSED, (finding,), old_source=source)


def _as_notebooks(results: Dict[str, FileResult]) -> None:
    """Each notebook's result, computed on its virtual code, as the notebook's own bytes: the new
    cells written back (or the notebook reported, QM002, if they cannot be), findings at the lines
    of the .ipynb file that hold their code, and so the lines of notebooks that messages name."""
    placed: Dict[str, notebooks.Virtual] = {}
    for path, result in results.items():
        if path.endswith(".ipynb") and result.old_source is not None and result.status is not Status.SKIPPED:
            results[path], found = _as_notebook(path, result)
            if found is not None:
                placed[path] = found
    if not placed:
        return

    def named(name: str) -> Optional[str]:
        hits = [path for path in placed if path == name or path.endswith(os.sep + name.lstrip("./"))]
        return hits[0] if len(hits) == 1 else None

    for path, result in results.items():
        own = path if path in placed else None

        def mapped(message: str) -> str:
            def other(match):
                where = named(match.group(1))
                if where is None:
                    return match.group(0)
                return "%s%s%d" % (match.group(1), match.group(2), placed[where].json_line(int(match.group(3))))
            message = _NOTEBOOK_LINE.sub(other, message)
            if own is not None:
                message = _OWN_LINE.sub(lambda m: "line %d" % placed[own].json_line(int(m.group(1))), message)
            return message

        if own is not None or any(".ipynb" in d.message for d in result.diagnostics):
            results[path] = dataclasses.replace(result, diagnostics=tuple(
                dataclasses.replace(d, message=mapped(d.message)) for d in result.diagnostics))


# A line of a notebook that a message names (`train.ipynb (line 44)`, `train.ipynb:44`), and a line
# of the notebook's own (`(line 37)`, `at line 37`), not one of a module it names.
_NOTEBOOK_LINE = re.compile(r"([\w./-]+\.ipynb)(:| \(line )(\d+)")
_OWN_LINE = re.compile(r"(?<!\.py \()(?<!\.ipynb \()(?<!\.py )\bline (\d+)")


def _as_notebook(path: str, result: FileResult):
    """(the notebook's result, its Virtual: None where the result is not of its virtual code)."""
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        return _failed(path, "cannot read: %s" % (error.strerror or error), failure=Failure.READ), None
    if source == result.old_source:  # not migrated: reported as a notebook already, or clean
        return result, None
    found, _ = notebooks.virtual(source)
    if found is None or found.code.encode("utf-8") != result.old_source:
        return _failed(path, "it changed while qmigrate ran; left unchanged", source), None
    new = None
    if result.changed:
        new, why = found.rebuild(result.new_source.decode("utf-8"))
        if new is None:
            return _notebook(path, source, why), None
    text = source.decode("utf-8").splitlines()

    def in_notebook(finding: Diagnostic) -> Diagnostic:
        line = found.json_line(finding.line)
        quote = text[line - 1].find('"') if line <= len(text) else -1
        return dataclasses.replace(finding, line=line, column=finding.column + quote + 1 if quote >= 0 else 1)

    return dataclasses.replace(result, diagnostics=tuple(in_notebook(finding) for finding in result.diagnostics),
                               old_source=source, new_source=new), found


def _link(files: List[str], first: Dict[str, _Done], options: Options, pool: _Pool):
    """(what linking each tower loop to its pipeline asks of every module on the way, by path;
    the summaries of the modules of the set by path, None for those that cannot take part).

    Runs on summaries. A module the prefilter skipped is summarised (in the pool) only when a
    link reaches it; the link is then made again with it, until no link reaches further.
    """
    summaries: Dict[str, Optional[ModuleSummary]] = {
        path: done.summary for path, done in first.items() if done.readable and done.result.status is not Status.SKIPPED}
    consumers = [(path, summary.consumers) for path, summary in summaries.items() if summary and summary.consumers]
    if not consumers:
        return {}, summaries
    paths = [path for path in files if first[path].readable]
    while True:
        linker = Linker(paths, summaries)
        plans = _plans(linker, consumers, options)
        if not linker.missing:
            return plans, summaries
        missing = sorted(linker.missing)
        summaries.update(zip(missing, pool.map(_summarise_file, missing)))


# Why a `for device in devices:` tower loop is reported but never sharded.
UNINDEXED = ("its towers have no index to shard by (`for device in devices:`); "
             "loop with `for index, device in enumerate(devices):` and run qmigrate again")


def _plans(linker: Linker, consumers, options: Options) -> Dict[str, LinkPlan]:
    plans: Dict[str, LinkPlan] = {}
    findings, failures = [], []
    for path, found in consumers:
        for consumer in found:
            chain, reason = linker.chain(path, consumer)
            if chain is None:
                failures.append((path, consumer, reason))
                continue
            code = {"prefetch": "QM401", "shared": SharedBatchAcrossTowers.code,
                    "per_tower": PerTowerPipelines.code}[consumer.kind]
            if not options.wants(code):
                continue
            if consumer.kind != "prefetch":
                findings.append((path, consumer, code))
                if not options.unsafe or not consumer.indexed:
                    continue
            elif not consumer.indexed:
                failures.append((path, consumer, UNINDEXED))
                continue
            # The unsafe fixes for shared batches and per-tower pipelines always shard.
            strategy = options.tower_strategy if consumer.kind == "prefetch" else "shard"
            reason = linker.add_edits(plans, path, consumer, chain, strategy)
            if reason:
                failures.append((path, consumer, reason))
    for path, consumer, reason in failures:
        if consumer.prefetch:
            plans.setdefault(path, LinkPlan()).reasons[consumer.index] = "its tower loop cannot be linked: " + reason
    for path, consumer, code in findings:
        plans.setdefault(path, LinkPlan()).findings.append((consumer.index, code, consumer.indexed))
    return plans


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
