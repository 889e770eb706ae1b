"""Migrate one module: parse → resolve names → recognise pipelines → synthesise → apply → verify.

`analyse` never raises for a module that parses; its result holds no CST nodes once rendered by
`FileAnalysis.result()`.
"""
import ast
import dataclasses
import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import (api_check, arm_producers, array_queues, astindex, blocks, bound_sources, branch_records,
                      bucketing, built_rows, captured_params, chained_records, class_attrs, codegen, cstutil,
                      data_findings, dead_datasets, dead_readers, dispatched_readers, drawn_arguments,
                      estimator_inputs, factory_reasons, file_guard,
                      graph_copies, graph_state, guarded_records, handbuilt, handed_down, held_records, held_sources,
                      helpers, imported_helpers, in_memory_rows, map_locals, method_copies, method_queues,
                      named_classes, prefetched_batches, python3_check, python_fed, queue_messages, queue_purpose,
                      queue_roles, queue_sources, range_producers, reader_makers, receivers, record_arms,
                      returned_dataset, returned_records, saved_graphs, slim_modules, split_arms, synth,
                      thread_coordinators, towers, unbound_tf, uncalled_datasets, unlinked, wording, zipped_arms)
from qmigrate.model import Pipeline, Sharding, ZipSource
from qmigrate.diagnostics import Diagnostic, FileResult, Status
from qmigrate.names import ImportMap, dotted
from qmigrate.positions import NodePositions, call_positions, stdlib_tree
from qmigrate.statement_memo import same_tree
from qmigrate.recognise import UNBATCHED_IN_BLOCK, Match, ModuleContext, NamePool, if_chain, recognise_block
from qmigrate.rules import (
    ALL_RULES, BATCHERS, JOINERS, PRODUCERS, READERS, SLICERS, SLIM_PROVIDERS, SLIM_READS,
    rule_for)
from qmigrate.rules import queue_runners
from qmigrate.rules.queue_runners import StartQueueRunners
from qmigrate.rules.hand_built import HandBuiltQueue
from qmigrate.rules.prefetch import PrefetchQueue
from qmigrate.rules.producers import MatchFilenamesOnce, RangeInputProducer
from qmigrate.rules.python_fed import PythonFedQueue
from qmigrate.rules.findings import ClosedQueueMessageExpected, LostSummary, UnseenRecordFunction
from qmigrate.rules.slim_provider import SlimReaderClassKept
from qmigrate.rules.target_api import ApiNotInTarget
from qmigrate.rules.unsupported import NonInputQueue, QueueClassNamed, short_name
from qmigrate.targets import TARGETS, Target

# A file without any of these words cannot hold queue code: skip it before parsing. Names are
# only resolved through imports of tensorflow, so a file must also say "tensorflow". `batch` is
# everywhere in ML code: tf.train.batch only counts when reached as train.batch, through an import
# naming it, or through the module that defines it (tensorflow.python.training.input).
_API_WORDS = {name.rsplit(".", 1)[-1] for rule in ALL_RULES for name in rule.names}
PREFILTER_WORDS = tuple(sorted(_API_WORDS - {"batch"}))
_PREFILTER_BYTES = tuple(word.encode() for word in PREFILTER_WORDS)  # encoded once, not once a file
# A name of the API is reached as a whole identifier (`tf.train.shuffle_batch`, `import bucket`):
# `bucket` inside `buckets` or `num_buckets` is no use of it.
_API_WORD = re.compile(rb"\b(?:%s)\b" % b"|".join(re.escape(word) for word in _PREFILTER_BYTES))
_BATCH_HINT = re.compile(rb"train\.batch\b|\bimport\b[^\n]*\bbatch\b|training import input|training\.input\b")

SUPPRESS_MARK = "qmigrate: ignore"


def may_contain_queue_code(source: bytes) -> bool:
    """Whether the file may hold anything qmigrate reports: False only when it cannot."""
    if b"tensorflow" not in source and b"tf." not in source:  # (a fragment may use a `tf` it never imports)
        return False
    # The substring test first: it is cheap, and the word test runs only on the few files it passes.
    if any(word in source for word in _PREFILTER_BYTES) and _API_WORD.search(source):
        return True
    if _BATCH_HINT.search(source):
        return True
    # Towers fed through placeholders (QM905), and tower loops that call an input function of
    # another module (a link): both need a loop that calls tf.device.
    return b"placeholder" in source and b"device" in source and _may_place_devices_in_a_loop(source)


def _may_place_devices_in_a_loop(source: bytes) -> bool:
    """Whether some `for` or `while` loop holds a call of `device` (an attribute `x.device`, the
    name `device`, or a name an import binds to a `device`): what a tower loop needs
    (towers.places_devices). True when the stdlib parser rejects the source (the analysis says why)."""
    tree = stdlib_tree(source)
    if tree is None:
        return True
    names = {"device"} | {alias.asname for node in astindex.nodes(tree, ast.ImportFrom) for alias in node.names
                          if alias.name == "device" and alias.asname}
    for loop in astindex.nodes(tree, ast.For, ast.While):
        for node in ast.walk(loop):
            if isinstance(node, ast.Call) and (
                    (isinstance(node.func, ast.Attribute) and node.func.attr == "device")
                    or (isinstance(node.func, ast.Name) and node.func.id in names)):
                return True
    return False


@dataclass
class Options:
    target: Target = TARGETS["1.8"]
    unsafe: bool = False  # also apply fixes whose safety is UNSAFE
    tower_strategy: str = "shard"  # how towers share a pipeline: "shard" | "shared-iterator"
    seed: Optional[int] = None  # the shards' shared file-order seed (None: drawn once per process)
    select: Tuple[str, ...] = ()  # rule codes or prefixes to apply and report (empty: all)
    ignore: Tuple[str, ...] = ()  # rule codes or prefixes never applied nor reported

    def wants(self, code: str) -> bool:
        """Whether a rule is selected and not ignored (prefixes count: "QM3" is every QM3xx)."""
        selected = not self.select or any(code.startswith(prefix) for prefix in self.select)
        return selected and not any(code.startswith(prefix) for prefix in self.ignore)


@dataclass
class FileAnalysis:
    """One parsed module and what the migration does to it."""

    path: str
    source: bytes
    module: cst.Module
    new_module: cst.Module
    occurrences: List[Tuple[type, cst.Call, int, int]] = field(default_factory=list)
    call_names: Dict[int, str] = field(default_factory=dict)  # id(call) -> canonical TF name
    reasons: Dict[int, str] = field(default_factory=dict)  # id(call) -> why it stays
    fixed_calls: Set[int] = field(default_factory=set)
    pipelines: int = 0
    pipeline_functions: Counter = field(default_factory=Counter)  # `f` / `Class.method` / "" -> pipelines migrated
    findings: List[Tuple[type, cst.CSTNode, bool, str]] = field(default_factory=list)  # (rule, node, fixed, detail)
    positions: object = None  # _Positions of the module as parsed
    suppressed_calls: Set[int] = field(default_factory=set)  # id(call) of `# qmigrate: ignore` lines
    imports: Optional[ImportMap] = None
    changed_helpers: List[str] = field(default_factory=list)  # helpers whose signature the migration changed
    # Functions that return a per-record structure every caller of the module discards, now one
    # record of its own iterator: (function, position, arity) (returned_records).
    returned_results: List[Tuple[str, int, int]] = field(default_factory=list)
    captured_params: List[Tuple[str, str, int]] = field(default_factory=list)  # Match.captured_params
    drawn_params: List[Tuple[str, str]] = field(default_factory=list)  # (function, Match.drawn_params' names)
    draws_failed: bool = False  # the draws the run asked to make functions were not found (drawn_arguments)
    imported_used: List[str] = field(default_factory=list)  # imported reader helpers every call of which migrated
    # Attributes that kept records on the object, which the migration removed (guarded_records),
    # and those of a reader or queue the object made in another method, with the method batching
    # their records (held_sources; a second call on one object would now read every record again):
    # other modules must not mention them (the run checks; `.name` in keep_helpers: they do).
    record_attributes: List[str] = field(default_factory=list)
    queues_moved: bool = False  # analysed with method_queues' moves: `module` is not a parse of `source`
    kept_calls: Set[int] = field(default_factory=set)  # id(call) in helpers kept as they were for other callers
    todo: Dict[int, str] = field(default_factory=dict)  # id(call) -> what to do, where the rule's advice does not fit
    # id(call) -> why it stays, for plumbing kept with nothing left to do (a Coordinator that still
    # works with no runner left): reported as a note, not a finding.
    kept_as_notes: Dict[int, str] = field(default_factory=dict)
    tree: Optional[ast.AST] = None  # the stdlib parser's tree (None where it rejects the file)
    module_loads: Optional[Counter] = None  # name loads of `module`, once counted
    queue_calls: Optional[List[cst.Call]] = None  # the queue API calls found in `module`
    call_positions: Optional[dict] = None  # positions.call_positions of them, if paired
    missing_names: Optional[tuple] = None  # (target, api_check.find's answer), if asked
    function_facts: Optional[Dict[int, tuple]] = None  # _function_facts of its functions, by id
    # Batching helpers of other modules (handed_down.Handed): name -> the calls of it migrated here.
    handed_uses: Dict[str, int] = field(default_factory=dict)
    chained: Tuple[str, ...] = ()  # the parts of chained_records' ask this module did
    chain_refused: Tuple[Tuple[str, str], ...] = ()  # and (part, why) for those it did not
    # Top-level functions that hand a reader class to a slim Dataset reported here (QM2xx), for
    # the run to tell whether any code calls them (uncalled_datasets).
    reader_class_functions: Tuple[str, ...] = ()
    # Provider factories of other modules whose calls here a pipeline took: "function.object.method".
    factories_used: Tuple[str, ...] = ()
    # Reader methods of families of classes (dispatched_readers) its pipelines called: (method, calls).
    dispatched_used: Tuple[Tuple[str, int], ...] = ()
    dispatched_written: Tuple[str, ...] = ()  # this module's reader methods of families migrated: `Class.method`
    # Top-level functions holding an input_fn that now returns its Dataset, which no other module
    # may name (estimator_inputs; the run checks).
    dataset_input_fns: List[str] = field(default_factory=list)
    # id() of the argument values of slim Dataset calls the rewrite removed (dead_datasets).
    dropped_datasets: Set[int] = field(default_factory=set)

    def new_bytes(self) -> bytes:
        """The source of `new_module`, generated once per module (verify and result both need it)."""
        cached = getattr(self, "_new_bytes", None)
        if cached is None or cached[0] is not self.new_module:
            cached = self._new_bytes = (self.new_module, codegen.module_bytes(self.new_module))
        return cached[1]

    def add_occurrence(self, rule, node: cst.CSTNode, name: str, suppressed: Dict[int, Set[str]]) -> bool:
        """`node` as an occurrence of `rule` (canonical `name`), unless a `# qmigrate: ignore` mark
        on its line (`suppressed`: line -> codes) silences the rule; whether it was added."""
        line, column = self.positions.start(node)
        if {rule.code, "*"} & suppressed.get(line, set()):
            return False
        self.occurrences.append((rule, node, line, column))
        self.call_names[id(node)] = name
        return True

    def add_finding(self, rule, node: cst.CSTNode, fixed: bool, detail: str = "") -> None:
        """A finding about `node`; `detail` (what was seen) is said after the rule's message."""
        self.findings.append((rule, node, fixed, detail))

    @property
    def remaining_queue_calls(self) -> int:
        return sum(1 for rule, call, _, _ in self.occurrences
                   if id(call) not in self.fixed_calls and rule not in PLUMBING and not rule.note)

    @property
    def queues_built(self) -> int:
        """Queue calls left that build queues when the program runs: those in helpers kept only for
        other callers run for those callers, which hold queue code of their own."""
        return sum(1 for rule, call, _, _ in self.occurrences
                   if id(call) not in self.fixed_calls and id(call) not in self.kept_calls
                   and rule not in PLUMBING and not rule.note)

    def _unlinked(self, rule, call) -> str:
        """Why a call no pipeline reached stays: where its chain leaves its function, if that shows."""
        if not isinstance(call, cst.Call) or not unlinked.explains(rule.code):
            return UNLINKED
        if rule.code.startswith("QM4") and not any(other.code.startswith("QM3") and id(node) not in self.fixed_calls
                                                   for other, node, _, _ in self.occurrences):
            return UNLINKED  # a prefetch queue is explained by a batching of its module that stays: there is none
        explainer = getattr(self, "_explainer", None)
        if explainer is None or explainer[0] is not self.module:
            calls = [c for _, c, _, _ in self.occurrences if isinstance(c, cst.Call)]
            explainer = self._explainer = (self.module, unlinked.Explainer(
                self.module, calls, self.imports.resolve, lambda node: self.positions.start(node)[0],
                lambda node: id(node) in self.fixed_calls))
        return explainer[1].reason(rule.code, call) or UNLINKED

    def _message(self, rule, call, queue_code_left: bool) -> Optional[str]:
        """What result() says about a queue call (None: nothing)."""
        name = self.call_names.get(id(call))
        message = rule.message_for(name)
        if id(call) in self.kept_as_notes:
            return message + "; no change needed: %s" % self.kept_as_notes[id(call)]
        if rule.note:
            if rule in SESSIONS and not queue_code_left:
                return None  # a session with nothing left for it to start: nothing to say
            message += "; %s" % rule.advice_for(name)
        elif id(call) not in self.fixed_calls:
            reason = self._reason(rule, call)
            to_do = self.todo.get(id(call)) or rule.advice_for(name) + _batching_hints(rule, call)
            message += "; not rewritten: %s; to do: %s" % (reason, to_do)
        return message

    def _reason(self, rule, call) -> str:
        return (self.reasons.get(id(call)) or rule.reason_for(self.call_names.get(id(call)))
                or (PLUMBING_KEPT if rule in PLUMBING else self._unlinked(rule, call)))

    def reason_of(self, call: cst.CSTNode) -> Optional[str]:
        """Why result() says `call` is not rewritten (None: it is, or it is not reported so)."""
        for rule, node, _, _ in self.occurrences:
            if node is call and not rule.note and id(call) not in self.fixed_calls \
                    and id(call) not in self.kept_as_notes:
                return self._reason(rule, call)
        return None

    def reason_template(self, call: cst.CSTNode) -> Optional["ReasonTemplate"]:
        """Where result() reports `call`, and its message around its reason, for that message to
        be made with another reason (None: the call is not reported with a reason)."""
        for rule, node, line, column in self.occurrences:
            if node is not call or rule.note or id(call) in self.fixed_calls or id(call) in self.kept_as_notes:
                continue
            kept = dict(self.reasons)
            self.reasons[id(call)] = _REASON_SLOT
            try:
                head, tail = self._message(rule, call, self.remaining_queue_calls > 0).split(_REASON_SLOT)
            finally:  # (in place: others may hold the dict)
                self.reasons.clear()
                self.reasons.update(kept)
            return ReasonTemplate(line, column, rule.code, head, tail)
        return None

    def result(self) -> FileResult:
        diagnostics = []
        queue_code_left = self.remaining_queue_calls > 0
        for rule, call, line, column in self.occurrences:
            message = self._message(rule, call, queue_code_left)
            if message is None:
                continue
            diagnostics.append(Diagnostic(self.path, line, column, rule.code, message, id(call) in self.fixed_calls,
                                          rule.safety, rule.note or id(call) in self.kept_as_notes))
        for rule, node, fixed, detail in self.findings:
            line, column = self.positions.start(node)
            message = rule.message + (" (%s)" % detail if detail else "")
            if not fixed:
                message += "; %s: %s" % ("consider" if rule.note else "to do", rule.advice)
            diagnostics.append(Diagnostic(self.path, line, column, rule.code, message, fixed, rule.safety,
                                          rule.note))
        # Copies of one call (arm_producers) stand at the call as written: one line says it once.
        diagnostics = sorted(dict.fromkeys(diagnostics), key=Diagnostic.sort_key)
        new_source = self.new_bytes() if self.new_module is not self.module else None
        if new_source == self.source:
            new_source = None
        return FileResult(self.path, status_of(diagnostics, new_source is not None), tuple(diagnostics), self.source,
                          new_source)


def status_of(diagnostics: Iterable[Diagnostic], changed: bool) -> Status:
    """A parsed file's status, from what is said about it and whether it is rewritten."""
    diagnostics = list(diagnostics)
    if not diagnostics:
        return Status.CLEAN
    if all(d.note for d in diagnostics) and not changed:
        return Status.CLEAN  # notes ask for no change
    if not changed:
        return Status.DIAGNOSED
    if all(d.fixed or d.note for d in diagnostics):  # notes ask for no change
        return Status.MIGRATED
    return Status.PARTIAL


@dataclass(frozen=True)
class ReasonTemplate:
    """A queue call's diagnostic in a result, but for its reason (FileAnalysis.reason_template)."""

    line: int
    column: int
    code: str
    head: str  # the message up to the reason
    tail: str  # and after it

    def apply(self, result: FileResult, reason: str) -> FileResult:
        """`result` with that diagnostic giving `reason`."""
        diagnostics = tuple(
            dataclasses.replace(d, message=self.head + reason + self.tail)
            if (d.line, d.column, d.code) == (self.line, self.column, self.code) and d.message.startswith(self.head)
            and d.message.endswith(self.tail) else d for d in result.diagnostics)
        return dataclasses.replace(result, diagnostics=tuple(sorted(dict.fromkeys(diagnostics),
                                                                    key=Diagnostic.sort_key)))


_REASON_SLOT = "\x00reason\x00"  # stands for the reason while a ReasonTemplate is made


class _Positions:
    """Node positions, computed only if something asks (positions.NodePositions: around the node
    asked about when `tree`, the stdlib parse of the module's source, is given)."""

    def __init__(self, module: cst.Module, where: Optional[Callable[[int, int], Tuple[int, int]]] = None,
                 tree: Optional[ast.AST] = None):
        self.module = module
        self._nodes = NodePositions(module, tree)
        # (line, column) in `module` -> in the file as the user wrote it, when the module is a
        # rewrite of it made before the analysis (method_queues); None: the same.
        self.where = where

    def raw_span(self, node: cst.CSTNode) -> Tuple[int, int, int]:
        """(line, 1-based column) where the node starts in `module`, and the line where it ends."""
        line, column, end = self._nodes.span(node)
        return line, column + 1, end

    def span(self, node: cst.CSTNode) -> Tuple[int, int, int]:
        """(line, 1-based column) where the node starts, and the line where it ends, in the file."""
        line, column, end = self.raw_span(node)
        return self.mapped(line, column, end)

    def mapped(self, line: int, column: int, end: int) -> Tuple[int, int, int]:
        if self.where is None:
            return line, column, end
        line_, column_ = self.where(line, column)
        return line_, column_, self.where(end, 1)[0]

    def start(self, node: cst.CSTNode) -> Tuple[int, int]:
        return self.span(node)[:2]


PLUMBING = (queue_runners.StartQueueRunners, queue_runners.Coordinator, queue_runners.QueueRunnersBlock,
            queue_runners.RunnersStartedByHand)
SESSIONS = (queue_runners.SessionStartsRunners,)
UNLINKED = ("it is not part of a producer → reader → batch chain that qmigrate can follow within one "
             "block (pipelines split across functions or modules are not rewritten yet)")
_KEPT_TODO = ("migrate those callers (a dataset of records instead of a queue), then delete %s() and call "
              "%s() everywhere")
# The keep reason of a helper whose calls in its own module stay: they run in every program that
# imports the module, and need not hold queue code of their own (a record source and a batching
# helper are the whole queue of `record = read(path); return make_batch(record.image, ...)`).
_LOCAL_CALLERS = "calls of it in this file that stay as they are"
_KEPT_REASON = ("%s() is kept as it was for %s, which pass it a queue or tensors to batch; the migrated "
                "pipelines call its migrated copy %s()")
PLUMBING_KEPT = "queue code is left in the migrated files, or none of them had a pipeline to migrate"


@dataclass(frozen=True)
class Parsed:
    """What analysing a module parsed, which a later analysis of the same bytes may start from:
    libcst's module (immutable: a rewrite makes new nodes), the stdlib tree (or REPARSE), the
    import map, the tower loops found in it (None if not looked for), and what the analysis
    found out about it alone (its queue calls and their positions, names the target lacks)."""

    module: cst.Module
    tree: object  # Optional[ast.AST], or REPARSE
    imports: ImportMap
    consumers: Optional[list] = None
    queue_calls: Optional[List[cst.Call]] = None  # the module's queue API calls, in order
    uses: object = None  # cstutil.name_uses(module), if counted
    call_positions: Optional[dict] = None  # their positions (FileAnalysis.call_positions)
    missing_names: Optional[tuple] = None  # FileAnalysis.missing_names
    function_facts: Optional[Dict[int, tuple]] = None  # FileAnalysis.function_facts

    @classmethod
    def of(cls, analysis: "FileAnalysis", consumers=None) -> "Parsed":
        """What `analysis` parsed, to keep for a later pass: without the stdlib tree, which takes
        as much memory as libcst's module (0.54 against 0.47 MB for a module of 10 KB) and a tenth
        of its time to parse again."""
        return cls(analysis.module, REPARSE, analysis.imports, consumers, analysis.queue_calls,
                   cstutil.kept_module_uses(analysis.module), analysis.call_positions, analysis.missing_names,
                   analysis.function_facts)

    def tree_of(self, source: bytes) -> Optional[ast.AST]:
        """The stdlib tree of `source`, the bytes this was parsed from."""
        return stdlib_tree(source) if self.tree is REPARSE else self.tree


REPARSE = object()  # Parsed.tree when it was not kept


def parse(source: bytes) -> cst.Module:
    """The module (new blocks indented as most of its blocks are: cstutil.with_usual_indent);
    raises cst.ParserSyntaxError if it does not parse."""
    return cstutil.with_usual_indent(cst.parse_module(source))


def analyse(path: str, source: bytes, options: Options, module: Optional[cst.Module] = None,
            edits: Optional[towers.TowerEdits] = None, keep_helpers: Dict[str, str] = None,
            parsed: Optional["Parsed"] = None, move_queues: bool = True,
            foreign: Optional["ForeignHelpers"] = None,
            handed: Optional[handed_down.Handed] = None,
            chain: Optional[chained_records.Ask] = None, uncalled: Tuple[str, ...] = ()) -> FileAnalysis:
    """Recognise and rewrite the pipelines of one module (and its part in tower loops, `edits`).

    `keep_helpers` names helper functions other code calls (name -> why): they stay as they are,
    and the pipelines call a migrated copy. Raises cst.ParserSyntaxError if it does not parse,
    python3_check.NotPython3 if only libcst parses it (Python 2 syntax, mostly). `parsed`: what
    an earlier analysis of the same bytes parsed (its module is then the one analysed).

    A queue one method makes and hands to another of its class (method_queues) is first made in
    the callee instead; that rewrite is kept only where the pipeline it completes is migrated.
    `move_queues=False` analyses `module` itself (a caller that holds nodes of it needs that).
    `foreign`: reader helpers imported from other modules of the set that its pipelines may call,
    and helpers of this module to migrate for callers in other modules (ForeignHelpers).
    `handed`: batching helpers of other modules this one calls, and helpers of this one whose
    every caller elsewhere was migrated (handed_down.Handed).
    `chain`: this module's part in records returned through functions of several modules into a
    hand-built queue (chained_records.Ask); the parts done are in `analysis.chained`.
    `uncalled`: top-level functions of this module that no code of the run calls (uncalled_datasets).
    """
    analysis = _analyse_either(path, source, options, module, edits, keep_helpers, parsed, move_queues, foreign,
                               handed)
    if handed is not None and handed.exported:
        handed_down.migrate_exported(analysis, handed.exported)
        analysis.new_module = drop_unused_imports(analysis.module, analysis.new_module, analysis.imports,
                                                  analysis.module_loads)
    if handed is not None and handed.unfollowed:
        handed_down.explain_unfollowed(analysis, handed.unfollowed)
    if chain is not None:
        tf = _python_fed_tf(analysis)
        analysis.chained, analysis.chain_refused = chained_records.apply(analysis, chain, tf, options.target,
                                                                         HandBuiltQueue)
        if analysis.chained:
            analysis.new_module = _ensure_tf_import(analysis.new_module, analysis.imports, tf)
    uncalled_datasets.apply(analysis, uncalled, SlimReaderClassKept)
    if named_classes.worth_looking(analysis.source) and analysis.new_module is analysis.module:
        _named_classes(analysis, options)
    draws = (keep_helpers or {}).get(drawn_arguments.CALLER_KEY)
    if draws:  # the random draws this module passes to another's per-record parameter become functions
        try:
            analysis.new_module = drawn_arguments.make_functions(analysis.module, analysis.new_module,
                                                                 [int(line) for line in draws.split(",")])
        except ValueError:
            analysis.draws_failed = True  # the run then keeps the pipeline and these draws as they were
    return analysis


def _analyse_either(path, source, options, module, edits, keep_helpers, parsed, move_queues, foreign, handed):
    if parsed is not None:
        module, tree = parsed.module, parsed.tree_of(source)
    else:
        module = module if module is not None else parse(source)
        tree = stdlib_tree(source)
    codegen.remember_source(module, source, tree)  # its statements' texts, generated for no version
    if move_queues and not edits and tree is not None and b"_producer" in source and SUPPRESS_MARK.encode() not in source \
            and method_queues.worth_looking(tree):  # a move would carry no `# qmigrate: ignore` mark along
        sunk = _analyse_sunk(path, source, options, module, keep_helpers, tree, foreign, handed)
        if sunk is not None:
            # The move is kept only when it leaves less queue code: another way of following the
            # file (a reading method that takes the record) may migrate more of it without it.
            plain = _analyse(path, source, options, module, edits, keep_helpers, tree=tree, parsed=parsed,
                             foreign=foreign, handed=handed)
            return sunk if _calls_left(sunk) < _calls_left(plain) else plain
    plain = _analyse(path, source, options, module, edits, keep_helpers, tree=tree, parsed=parsed, foreign=foreign,
                     handed=handed)
    if move_queues and not edits and tree is not None and b"_producer" in source \
            and SUPPRESS_MARK.encode() not in source and plain.remaining_queue_calls:
        # (plain.imports: the import map of `module`, which each attempt's `find` reads)
        # Each way of moving code is tried; the one that leaves the fewest queue calls is kept (the
        # first among equals, in this order), if it leaves fewer than the file as written.
        best = plain
        either_arm = record_arms.worth_looking(source)
        tried_arms: List[FileAnalysis] = []  # the record_arms attempt that migrated less than asked
        for attempt in (_analyse_guarded, _analyse_arms, _analyse_zipped_arms) + (
                (functools.partial(_analyse_record_arms, tried=tried_arms),) if either_arm else ()) + (
                (_analyse_split_arms,) if split_arms.worth_looking(source) else ()):
            moved = attempt(path, source, options, module, keep_helpers, tree, foreign, handed, plain.imports)
            if moved is not None and _calls_left(moved) < _calls_left(best):
                best = moved
        if either_arm:
            _say_record_arms(best, tried_arms[:1])
        if best is not plain:
            return best
        _say_kept_records(plain, keep_helpers or {})
    if move_queues and not edits and tree is not None and in_memory_rows.worth_looking(source) \
            and SUPPRESS_MARK.encode() not in source and plain.remaining_queue_calls:
        rows = _analyse_in_memory_rows(path, source, options, module, keep_helpers, tree, foreign, handed,
                                       plain.imports)
        if rows is not None and _calls_left(rows) < _calls_left(plain):
            return rows
    return plain


def _say_kept_records(analysis: FileAnalysis, keep: Dict[str, str]) -> None:
    """The batching of records kept on the object, whose attributes other modules mention, says so."""
    if not any(name.startswith(".") for name in keep):
        return
    for move in guarded_records.find(analysis.module, analysis.imports):
        why = next((keep["." + attr] for attr in move.attrs if "." + attr in keep), None)
        call = cstutil.single_assign(move.batch)[1]
        if why is not None and id(call) not in analysis.fixed_calls:
            analysis.reasons[id(call)] = ("its records are kept on the object (`.%s`), and %s: they may read them"
                                          % (move.attrs[0], why))


_EITHER_ARM_START = "its records come from either arm of the if/else at line"
_EITHER_ARM = (_EITHER_ARM_START + " %d, which qmigrate follows by making each arm a whole chain (the queues an "
               "arm reads made in it, the code after the `if` up to the batching copied into it), but %s")


def _say_record_arms(analysis: FileAnalysis, tried: List[FileAnalysis] = ()) -> None:
    """The queue calls around an if/else whose arms each read the record the code after it batches,
    left with no more than the plain chain reason, say why record_arms did not make each arm whole:
    it could not move them, or (`tried`: the analysis of the module with the arms made whole,
    reported at the lines as written) the chain of an arm stays for a reason of its own."""
    for statements, branch, why in record_arms.refusals(analysis.module, analysis.imports):
        line = analysis.positions.start(branch)[0]
        for stmt in statements:
            for call in cstutil.calls_of(stmt):
                if analysis.reason_of(call) == UNLINKED:
                    analysis.reasons[id(call)] = _EITHER_ARM % (line, why)
    for moved in tried:
        # The reasons the arms' chains gave, by line and rule: those of a call each arm holds a copy of.
        said = {}
        for rule, call, line, _ in moved.occurrences:
            reason = moved.reason_of(call)
            if reason is not None and reason != UNLINKED and not reason.startswith(_EITHER_ARM_START):
                said.setdefault((line, rule.code), reason)
        for move in record_arms.find(analysis.module, analysis.imports):
            line = analysis.positions.start(move.branch)[0]
            end = analysis.positions.span(move.tail[-1] if move.tail else move.branch)[2]
            for rule, call, at, _ in analysis.occurrences:
                reason = analysis.reason_of(call)
                found = said.get((at, rule.code))
                # the calls of the if and of the code up to the batching, and the queues before it
                # whose reason is the plain chain's or their use by the if
                if reason is not None and found is not None and found != reason and rule not in PLUMBING \
                        and (line < at <= end or reason == UNLINKED or handbuilt.used_beyond(reason)):
                    analysis.reasons[id(call)] = _EITHER_ARM % (line, "there: " + found)


def _analyse_guarded(path: str, source: bytes, options: Options, module: cst.Module,
                     keep_helpers: Optional[Dict[str, str]], tree: ast.Module,
                     foreign: Optional["ForeignHelpers"],
                     handed: Optional[handed_down.Handed], imports: ImportMap) -> Optional[FileAnalysis]:
    """The analysis of the module with guarded_records' moves made, keeping those whose batching
    the migration then rewrites and finishing them (None: none). As for _analyse_sunk, positions
    are those of the file as written and `module` is not a parse of `source`."""
    everything = [move for move in guarded_records.find(module, imports)
                  if not any("." + attr in (keep_helpers or {}) for attr in move.attrs)]
    moves = everything
    old_at = _Positions(module, tree=tree)
    while moves:
        new_module, calls = guarded_records.sink(module, moves)
        old_calls = [cstutil.single_assign(move.batch)[1] for move in moves]
        analysis = _analyse_moved(path, options, module, old_at, new_module, zip(calls, old_calls), keep_helpers,
                                  foreign, handed)
        kept = guarded_records.together(everything, [
            move for move, call in zip(moves, calls) if id(call) in analysis.fixed_calls])
        if len(kept) == len(moves):
            finished = guarded_records.finish(analysis.new_module, moves)
            if finished is None:
                return None
            analysis.new_module = finished
            analysis.source, analysis.tree = source, tree
            analysis.queues_moved = True
            analysis.record_attributes = sorted(set(analysis.record_attributes)
                                                | {attr for move in moves for attr in move.attrs})
            return analysis
        moves = kept
    return None


def _analyse_arms(path: str, source: bytes, options: Options, module: cst.Module,
                  keep_helpers: Optional[Dict[str, str]], tree: ast.Module, foreign: Optional["ForeignHelpers"],
                  handed: Optional[handed_down.Handed], imports: ImportMap) -> Optional[FileAnalysis]:
    """The analysis of the module with arm_producers' moves made (each producer made in the arms of
    the `if` that read its queue), keeping those of which the migration then rewrites a copy (None:
    none). As for _analyse_sunk, positions are those of the file as written (every copy at its
    producer's) and `module` is not a parse of `source`."""
    def make(moves):
        new_module, copies = arm_producers.sink(module, moves)
        return new_module, [(copy, move.producer) for move, calls in zip(moves, copies) for copy in calls], copies

    def kept(analysis, moves, copies):
        return [move for move, calls in zip(moves, copies) if any(id(call) in analysis.fixed_calls for call in calls)]

    return _analyse_moving(path, source, options, module, keep_helpers, tree, foreign, handed,
                           arm_producers.find(module, imports), make, kept)


def _analyse_zipped_arms(path: str, source: bytes, options: Options, module: cst.Module,
                         keep_helpers: Optional[Dict[str, str]], tree: ast.Module, foreign: Optional["ForeignHelpers"],
                         handed: Optional[handed_down.Handed], imports: ImportMap) -> Optional[FileAnalysis]:
    """The analysis of the module with zipped_arms' moves made (a chain made before an if/else
    and the batching after it copied into each arm), keeping the moves of which the migration then
    rewrites every queue call of every copy (None: none). Positions as for _analyse_arms."""
    def make(moves):
        new_module, copies = zipped_arms.sink(module, moves)
        return new_module, copies, copies

    def kept(analysis, moves, copies):
        queue_calls = {id(call) for _, call, _, _ in analysis.occurrences}
        found = []
        for move in moves:
            mine = {id(stmt) for stmt in move.head + move.tail}
            calls = [call for copy, original in copies if id(original) in mine for call in cstutil.calls_of(copy)
                     if id(call) in queue_calls]
            if calls and all(id(call) in analysis.fixed_calls for call in calls):
                found.append(move)
        return found

    return _analyse_moving(path, source, options, module, keep_helpers, tree, foreign, handed,
                           zipped_arms.find(module, imports), make, kept)


def _analyse_record_arms(path: str, source: bytes, options: Options, module: cst.Module,
                         keep_helpers: Optional[Dict[str, str]], tree: ast.Module, foreign: Optional["ForeignHelpers"],
                         handed: Optional[handed_down.Handed], imports: ImportMap,
                         tried: Optional[List[FileAnalysis]] = None) -> Optional[FileAnalysis]:
    """The analysis of the module with record_arms' moves made (the queues an if/else's arms read
    made in those arms, and the parsing and batching after it copied into each), keeping the moves
    of which the migration then rewrites every queue call of the arms and of the copies (None:
    none). Positions as for _analyse_arms. `tried` gets the first analysis, when it keeps fewer
    moves than it made (its reasons say why an arm's chain stays)."""
    def make(moves):
        return record_arms.sink(module, moves)  # (new module, copies, each move's arms)

    def kept(analysis, moves, arms):
        queue_calls = {id(call) for _, call, _, _ in analysis.occurrences}
        found = []
        for move, blocks_ in zip(moves, arms):
            calls = [call for block in blocks_ for call in cstutil.calls_of(block) if id(call) in queue_calls]
            if calls and all(id(call) in analysis.fixed_calls for call in calls):
                found.append(move)
        return found

    return _analyse_moving(path, source, options, module, keep_helpers, tree, foreign, handed,
                           record_arms.find(module, imports), make, kept, tried)


def _analyse_split_arms(path: str, source: bytes, options: Options, module: cst.Module,
                        keep_helpers: Optional[Dict[str, str]], tree: ast.Module, foreign: Optional["ForeignHelpers"],
                        handed: Optional[handed_down.Handed], imports: ImportMap) -> Optional[FileAnalysis]:
    """The analysis of the module with split_arms' splits made (an if/else choosing the queue class
    that also holds per-record code and settings, written as one if per group), keeping those whose
    two queue constructors the migration then rewrites (None: none). Positions as for _analyse_arms."""
    def make(splits):
        new_module, queues = split_arms.split(module, splits)
        return new_module, queues, None

    def kept(analysis, splits, _):
        return [one for one in splits if all(id(call) in analysis.fixed_calls for call in one.calls)]

    return _analyse_moving(path, source, options, module, keep_helpers, tree, foreign, handed,
                           split_arms.find(module, imports), make, kept)


def _analyse_in_memory_rows(path: str, source: bytes, options: Options, module: cst.Module,
                            keep_helpers: Optional[Dict[str, str]], tree: ast.Module,
                            foreign: Optional["ForeignHelpers"], handed: Optional[handed_down.Handed],
                            imports: ImportMap) -> Optional[FileAnalysis]:
    """The analysis of the module with in_memory_rows' moves made (in-memory arrays batched with
    enqueue_many=True, written as the slice producer of their rows), keeping those whose producer
    and batching the migration then rewrites (None: none). The producers the moves added are not
    the file's: they are not reported. Positions as for _analyse_arms (both calls at the batching)."""
    made_calls = []

    def make(moves):
        new_module, made = in_memory_rows.sink(module, moves)
        made_calls[:] = made
        return new_module, [(call, move.batcher) for move, pair in zip(moves, made) for call in pair], made

    def kept(analysis, moves, made):
        return [move for move, (producer, batcher) in zip(moves, made)
                if id(producer) in analysis.fixed_calls and id(batcher) in analysis.fixed_calls]

    analysis = _analyse_moving(path, source, options, module, keep_helpers, tree, foreign, handed,
                               in_memory_rows.find(module, imports), make, kept)
    if analysis is not None:
        added = {id(producer) for producer, _ in made_calls}
        analysis.occurrences = [found for found in analysis.occurrences if id(found[1]) not in added]
    return analysis


def _analyse_moving(path: str, source: bytes, options: Options, module: cst.Module,
                    keep_helpers: Optional[Dict[str, str]], tree: ast.Module, foreign: Optional["ForeignHelpers"],
                    handed: Optional[handed_down.Handed], moves: List, make: Callable, kept: Callable,
                    tried: Optional[List[FileAnalysis]] = None) -> Optional[FileAnalysis]:
    """The analysis of the module with `moves` made (`make(moves)`: the new module, its (new node,
    original) pairs for positions, and what `kept(analysis, moves, that)` needs to say which moves
    to keep), retried with the moves kept until all are (None: none is). `tried` gets the first
    analysis when it keeps fewer moves than it made."""
    old_at = _Positions(module, tree=tree)
    while moves:
        new_module, moved, made = make(moves)
        analysis = _analyse_moved(path, options, module, old_at, new_module, moved, keep_helpers, foreign, handed)
        keeping = kept(analysis, moves, made)
        if tried is not None and not tried and len(keeping) < len(moves):
            tried.append(analysis)
        if len(keeping) == len(moves):
            analysis.source, analysis.tree = source, tree  # the file as written, for the diff and summary
            analysis.queues_moved = True
            return analysis
        moves = keeping
    return None


def _analyse_moved(path: str, options: Options, module: cst.Module, old_at: "_Positions", new_module: cst.Module,
                   moved, keep_helpers: Optional[Dict[str, str]], foreign: Optional["ForeignHelpers"],
                   handed: Optional[handed_down.Handed]) -> FileAnalysis:
    """_analyse of `new_module`, a rewrite of `module` that moved code (method_queues, guarded_records),
    with positions mapped back to the file as written through `moved`: (new node, its original)
    pairs; `old_at`: the positions of `module`."""
    new_source = new_module.bytes
    new_tree = stdlib_tree(new_source)
    new_at = _Positions(new_module, tree=new_tree)
    where = method_queues.line_map(module.code, new_module.code, [
        (new_at.raw_span(new), old_at.raw_span(old)) for new, old in moved])
    return _analyse(path, new_source, options, new_module, None, dict(keep_helpers or {}), where, tree=new_tree,
                    foreign=foreign, handed=handed)


def _calls_left(analysis: FileAnalysis) -> int:
    """How many of the module's queue API calls its migration leaves."""
    return sum(1 for _, call, _, _ in analysis.occurrences if id(call) not in analysis.fixed_calls)


def _analyse_sunk(path: str, source: bytes, options: Options, module: cst.Module,
                  keep_helpers: Optional[Dict[str, str]], tree: ast.Module,
                  foreign: Optional["ForeignHelpers"] = None,
                  handed: Optional[handed_down.Handed] = None) -> Optional[FileAnalysis]:
    """The analysis of the module with the producers of method_queues.find moved into the methods
    their queues are handed to, keeping the moves whose producer the migration then rewrites (None:
    none). Positions are those of the file as written; its `module` is the moved one
    (`queues_moved`), so it is not a parse of `source` to keep for a later pass."""
    imports = ImportMap(module, tree)
    module_names = set()
    for stmt in module.body:
        module_names |= {stmt.name.value} if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) \
            else set(cstutil.name_uses(stmt).stores)
    # A method other modules call keeps its signature (the queue parameter), so nothing moves into it.
    sinks = [s for s in method_queues.find(module, imports, module_names)
             if _moved_into(s) not in (keep_helpers or {})]
    old_at = _Positions(module, tree=tree)
    while sinks:
        new_module, producers = method_queues.sink(module, sinks)
        analysis = _analyse_moved(path, options, module, old_at, new_module,
                                  [(call, s.producer) for s, call in zip(sinks, producers) if call], keep_helpers,
                                  foreign, handed)
        kept = [s for s, call in zip(sinks, producers) if call is not None and id(call) in analysis.fixed_calls]
        if len(kept) == len(sinks):
            analysis.source, analysis.tree = source, tree  # the file as written, for the diff and summary
            analysis.queues_moved = True
            # The methods that now take what the producer was made from: their callers elsewhere
            # are looked for (api._helpers_to_keep), as for any helper whose signature changed.
            analysis.changed_helpers += [name for name in map(_moved_into, sinks) if name]
            return analysis
        sinks = kept
    return None


def _held_records(path: str, options: Options, module: cst.Module, new_module: cst.Module, analysis: FileAnalysis,
                  context: ModuleContext, tf: str, keep_helpers, foreign, handed) -> cst.Module:
    """`new_module` with the classes whose records __init__ makes and another method batches
    migrated (held_records), each checked by migrating it written as one block; the reasons of
    those that stay."""
    def oracle(normalized: cst.Module) -> FileAnalysis:
        code = normalized.bytes
        return _analyse(path, code, options, normalized, None, dict(keep_helpers or {}), tree=stdlib_tree(code),
                        foreign=foreign, handed=handed, find_held=False)

    for outcome in held_records.apply(module, analysis.imports, context.class_attrs, analysis.tree,
                                      context.mentioned_attributes, context.kept_captures, tf, options.target,
                                      oracle):
        held = outcome.held
        calls = [held.producer_call, held.batch_call]
        if any(id(call) in analysis.fixed_calls for call in calls):
            continue  # the chain migrated another way
        if outcome.new_class is None:
            for call in calls:
                analysis.reasons[id(call)] = "its records are made in __init__() and batched by %s(), and %s" % (
                    held.method.name.value, outcome.reason)
            continue
        replaced = _replace_class(new_module, module, held.cls, outcome.new_class)
        if replaced is None:
            continue  # the rewrite changed the class already
        new_module = replaced
        analysis.fixed_calls |= outcome.fixed
        analysis.pipelines += 1
        analysis.pipeline_functions["%s.__init__" % held.cls.name.value] += 1
        analysis.record_attributes += [held.method.name.value, held.queue] + list(held.records)
        analysis.captured_params += list(outcome.captured)
    return new_module


def _prefetched_batches(module: cst.Module, new_module: cst.Module, analysis: FileAnalysis,
                        context: ModuleContext, tree: Optional[ast.Module]) -> cst.Module:
    """`new_module` with the prefetch queues the migration left over a batch it made a dataset
    (prefetched_batches): fixed, or with the reason they stay."""
    left = [call for rule, call, _, _ in analysis.occurrences
            if rule is PrefetchQueue and id(call) not in analysis.fixed_calls]
    if not left:
        return new_module
    path_of = getattr(context.load_module, "path_of", None)
    outcome = prefetched_batches.rewrite(module, new_module, analysis.imports, left, tree, path_of)
    _take_outcome(analysis, outcome.fixed, outcome.reasons)
    return outcome.module


def _take_outcome(analysis: FileAnalysis, fixed: Set[int], reasons: Dict[int, str]) -> None:
    """What a pass over the migrated module did with the calls it was handed: `fixed` (ids of the
    original module's calls) are fixed and lose their reasons; the others get `reasons`."""
    analysis.fixed_calls |= fixed
    for call in fixed:
        analysis.reasons.pop(call, None)
    analysis.reasons.update(reasons)


def _raw_queue_calls(analysis: FileAnalysis) -> List[cst.Call]:
    """The constructor calls of hand-built queues the migration left."""
    return [call for rule, call, _, _ in analysis.occurrences
            if analysis.call_names.get(id(call)) in queue_roles.RAW_QUEUES and id(call) not in analysis.fixed_calls]


def _array_queues(module: cst.Module, new_module: cst.Module, analysis: FileAnalysis, tf: str,
                  target) -> cst.Module:
    """`new_module` with the hand-built queues the migration left that take in-memory arrays
    (array_queues): datasets of their rows, or with the reason they stay."""
    left = _raw_queue_calls(analysis)
    if not left:
        return new_module
    outcome = array_queues.rewrite(module, new_module, analysis.imports, left, tf, target)
    _take_outcome(analysis, outcome.fixed, outcome.reasons)
    # A queue of in-memory rows whose dequeues were all fetched to Python (QM003 took it for a
    # work list) carried data all the same: it is reported as the hand-built queue it replaced.
    analysis.occurrences = [(HandBuiltQueue if rule is NonInputQueue and id(call) in outcome.fixed else rule,
                             call, line, column) for rule, call, line, column in analysis.occurrences]
    analysis.todo.update(outcome.todos)
    analysis.pipelines += outcome.queues
    return outcome.module


def _replace_class(new_module: cst.Module, module: cst.Module, old: cst.ClassDef,
                   replacement: cst.ClassDef) -> Optional[cst.Module]:
    """`new_module` with the class `old` of `module` (found by its name and unchanged text) put
    in `replacement`'s place; None when it changed or is not there once."""
    text = module.code_for_node(old)
    found = [stmt for stmt in new_module.body if isinstance(stmt, cst.ClassDef) and stmt.name.value == old.name.value]
    if len(found) != 1 or new_module.code_for_node(found[0]) != text:
        return None
    return new_module.with_changes(body=[replacement if stmt is found[0] else stmt for stmt in new_module.body])


def _moved_into(sink) -> Optional[str]:
    """`Class.method` or `function` whose signature a move changes (None: a nested function, seen
    only here)."""
    if isinstance(sink, method_queues.Sink):
        if sink.cls is None:
            return sink.callee.name.value
        return "%s.%s" % (sink.cls.name.value, sink.callee.name.value)
    return None


def _analyse(path: str, source: bytes, options: Options, module: cst.Module,
             edits: Optional[towers.TowerEdits], keep_helpers: Optional[Dict[str, str]],
             where: Optional[Callable[[int, int], Tuple[int, int]]] = None, tree=False,
             parsed: Optional["Parsed"] = None, foreign: Optional["ForeignHelpers"] = None,
             handed: Optional[handed_down.Handed] = None, find_held: bool = True) -> FileAnalysis:
    """analyse() of `module` as it is (`tree`: its stdlib tree when already made, None if the
    stdlib parser refuses it; `where`: see _Positions; `parsed`: as for analyse, of `module`;
    `find_held`: whether records an object makes in __init__ are looked for, held_records)."""
    edits = edits or towers.TowerEdits()
    if parsed is not None:
        imports = parsed.imports
        if parsed.uses is not None:
            cstutil.keep_module_uses(module, parsed.uses)
    else:
        tree = stdlib_tree(source) if tree is False else tree
        if tree is None:
            python3_check.check(source)
        imports = ImportMap(module, tree)  # the stdlib tree is several times faster to walk
    positions = _Positions(module, where, tree or None)
    analysis = FileAnalysis(path, source, module, module, positions=positions, imports=imports, tree=tree)
    suppressed = _suppressed_lines(module) if SUPPRESS_MARK.encode() in source else {}
    calls = list(parsed.queue_calls) if parsed is not None and parsed.queue_calls is not None else \
        _queue_calls(module, imports)
    analysis.queue_calls = list(calls)
    suppressed_rules = set()
    cheap = parsed.call_positions if parsed is not None and parsed.call_positions is not None else \
        call_positions(tree, source, module.encoding, calls, imports, lambda name: rule_for(name) is not None)
    analysis.call_positions = cheap
    for call in calls:
        rule = rule_for(imports.resolve(call.func))
        line, column, end = cheap[id(call)] if cheap is not None else positions.raw_span(call)
        silenced = set().union(*(suppressed.get(n, ()) for n in range(line, end + 1)))
        line, column, end = positions.mapped(line, column, end)
        if rule.code in silenced or "*" in silenced or not options.wants(rule.code):  # any line the call spans
            analysis.suppressed_calls.add(id(call))  # neither reported nor rewritten
            suppressed_rules.add(rule)
            continue
        analysis.occurrences.append((rule, call, line, column))
        analysis.call_names[id(call)] = imports.resolve(call.func)
    for rule, node, name, reason in _hand_made_runners(module, source, imports):
        if options.wants(rule.code):
            line, column = positions.start(node)
            analysis.occurrences.append((rule, node, line, column))
            analysis.call_names[id(node)] = name
            if rule in PLUMBING:
                continue  # kept or removed with the rest of the plumbing, which says why
            analysis.reasons[id(node)], todo = reason if isinstance(reason, tuple) else (reason, None)
            analysis.todo[id(node)] = todo or ("replace the queues it fills by a dataset (from_generator for data "
                                               "made in Python), then remove it")
    if unbound_tf.applies(source, imports, tree):
        unbound_tf.report(analysis, options.wants, suppressed, imports)
    if b"Supervisor" in source and b"start_queue_runners" in source and options.wants(StartQueueRunners.code):
        _supervisor_starts(analysis, suppressed)
    if named_classes.may_subclass(source):
        _subclassed_queue_classes(analysis, options, suppressed)
    _reader_class_arguments(analysis, options)
    _mark_non_input_queues(analysis, options)
    _drop_thread_coordinators(analysis)
    _drop_unfed_file_matches(analysis)
    fed = _python_fed_queues(analysis, options, source, keep_helpers)
    if data_findings.worth_scanning(source, [analysis.call_names[id(c)] for _, c, _, _ in analysis.occurrences]):
        for found in data_findings.find(module, imports, lambda node: positions.start(node)[0], options.wants):
            analysis.add_finding(found.rule, found.node, False, found.detail)
    if (queue_messages.worth_scanning(source) and analysis.occurrences
            and options.wants(ClosedQueueMessageExpected.code)):
        for node in queue_messages.find(module):
            analysis.add_finding(ClosedQueueMessageExpected, node, False, None)
    if api_check.applies(analysis.occurrences, edits, options.wants):
        missing = parsed.missing_names if parsed is not None else None
        if missing is None or missing[0] != options.target:
            missing = (options.target, api_check.find(module, imports, options.target, tree))
        analysis.missing_names = missing
        for node, detail in missing[1]:
            silenced = suppressed.get(positions.start(node)[0], ()) if suppressed else ()
            if ApiNotInTarget.code not in silenced and "*" not in silenced:
                analysis.add_finding(ApiNotInTarget, node, False, detail)
    rules_found = {rule for rule, _, _, _ in analysis.occurrences} | suppressed_rules
    if rules_found & set(SLIM_PROVIDERS):  # provider factories: why the providers they return stay
        for key, reason in factory_reasons.returned_reasons(
                module, imports, lambda node: positions.start(node)[0], slim_modules.ModuleLoader(path),
                {id(call) for rule, call, _, _ in analysis.occurrences if rule in SLIM_PROVIDERS}).items():
            analysis.reasons.setdefault(key, reason)
    if foreign is not None and (foreign.imported or foreign.sources or foreign.dispatched):
        rules_found.add(READERS[0])  # the readers of imported helpers count as this module's
    if foreign is not None and foreign.sources:
        rules_found.add(PRODUCERS[0])  # and so do the producers of imported record sources
    # A program that copies its graph with Edward keeps its queues (graph_copies): reported only.
    copied = (graph_copies.reason() if graph_copies.uses_edward(imports)
              else (keep_helpers or {}).get(graph_copies.KEPT_KEY)) if analysis.occurrences else None
    if copied or not edits and not (foreign is not None and (foreign.migrate or foreign.refused or foreign.factories
                                                             or foreign.members)) \
            and not _may_hold_pipeline(rules_found) \
            and not (HandBuiltQueue in rules_found and array_queues.worth_looking(source)
                     and array_queues.any_of_arrays(module, imports, _raw_queue_calls(analysis))):
        _finish_python_fed(analysis, [] if copied else fed, options)
        _explain_unfed_queues(analysis, imports, positions)
        if any(rule in READERS for rule in rules_found):
            reader_makers.explain(reader_makers.of_module(module, imports), analysis.reasons, analysis.todo, (),
                                  analysis.kept_calls)
        if copied:
            for rule, node, _, _ in analysis.occurrences:
                if rule not in PLUMBING:
                    analysis.reasons.setdefault(id(node), copied)
        return analysis  # nothing to link: reporting needs no further pass over a (maybe huge) module
    facts = parsed.function_facts if parsed is not None and parsed.function_facts is not None else {}
    context = _module_context(module, imports, tree, source.decode(module.encoding, errors="replace"), facts)
    analysis.function_facts = facts
    context.line_of = lambda node: positions.start(node)[0]
    context.unsafe = options.unsafe
    context.load_module = slim_modules.ModuleLoader(path)
    foreign = foreign or ForeignHelpers()
    imported_readers = _add_imported_helpers(context, foreign.imported)
    context.refused_helpers = {name: why for name, why in foreign.refused.items() if name in imported_readers}
    imported_readers -= set(context.refused_helpers)
    # Record-source methods of other modules' classes, by their key here (`Class.method`) -> the job's name.
    imported_sources = {imported_helpers.method_key(name): name
                        for name in _add_imported_sources(context, foreign.sources)}
    for key, name in list(imported_sources.items()):
        if name in foreign.refused:  # its calls stay, saying why (recognise's _method_source)
            context.refused_helpers[key] = foreign.refused[name]
            del imported_sources[key]
    _add_imported_makers(context, foreign.makers)
    context.provider_factories = dict(foreign.factories)
    context.dispatched = dict(foreign.dispatched)
    imported_batchers = handed_down.add_imported(context, handed)
    context.kept_results = {name[len(returned_records.KEPT_PREFIX):]: why for name, why in (keep_helpers or {}).items()
                            if name.startswith(returned_records.KEPT_PREFIX)}
    context.kept_captures = {name[len(captured_params.KEPT_PREFIX):]: why for name, why in (keep_helpers or {}).items()
                             if name.startswith(captured_params.KEPT_PREFIX)}
    context.drawn_params = {name[len(drawn_arguments.CALLEE_PREFIX):]: set(params.split(","))
                            for name, params in (keep_helpers or {}).items()
                            if name.startswith(drawn_arguments.CALLEE_PREFIX)}
    context.mentioned_attributes = {name[1:]: why for name, why in (keep_helpers or {}).items()
                                    if name.startswith(".")}
    context.kept_input_fns = {name[len(estimator_inputs.KEPT_PREFIX):]: why
                              for name, why in (keep_helpers or {}).items()
                              if name.startswith(estimator_inputs.KEPT_PREFIX)}
    keep = _keep_forwarded(keep_helpers or {}, context)
    # The analysis as it stands before any rewrite, for a second attempt (findings and names kept).
    def pristine() -> FileAnalysis:
        return dataclasses.replace(analysis, reasons={}, fixed_calls=set(), findings=list(analysis.findings),
                                   pipeline_functions=Counter(), todo={}, returned_results=[],
                                   captured_params=[], drawn_params=[], dataset_input_fns=[])
    first, unlinked_first = pristine(), pristine()
    rewriter = _PipelineRewriter(module, context, options, analysis, edits, keep)
    new_module = module.visit(rewriter)
    uses = _forwarded_uses(rewriter.helper_uses, context)
    partial = _partly_used_helpers(module, uses, tree, context) - set(keep)
    dropped = partial & (imported_readers | set(imported_sources))
    for name in dropped:
        # An imported helper has no copy here to call: its calls all stay as they are.
        if name in imported_sources:
            del context.record_sources[name], context.foreign_classes[name], imported_sources[name]
            context.static_methods.discard(name)
            continue
        del context.reader_helpers[name]
        imported_readers.discard(name)
    partial -= dropped
    earlier = None  # the analysis before any helper was kept for this file's own callers
    if partial or dropped:
        earlier = analysis
        # Calls of these helpers that were not migrated still pass a queue: the helpers stay as they
        # are for them, and the migrated pipelines call a migrated copy. Rewrite again knowing it.
        keep.update((name, _LOCAL_CALLERS) for name in partial)
        keep = _keep_forwarded(keep, context)
        analysis = first
        rewriter = _PipelineRewriter(module, context, options, analysis, edits, keep)
        new_module = module.visit(rewriter)
        uses = _forwarded_uses(rewriter.helper_uses, context)
    # This module's record sources whose callers elsewhere hand them the record are not read in place.
    for_others = {name for name in foreign.migrate if name in context.record_sources and name not in keep}
    unlinked = {name for name in rewriter.deferred_unbatched
                if (not uses[name] and name not in for_others) or name in keep}
    if unlinked:
        # Record-source helpers no caller linked, or kept for callers that are not: their own reads
        # become datasets in place after all (a kept one's migrated copy is made from its original).
        analysis = unlinked_first
        rewriter = _PipelineRewriter(module, context, options, analysis, edits, keep, unlinked)
        new_module = module.visit(rewriter)
        uses = _forwarded_uses(rewriter.helper_uses, context)
    for call, reason in rewriter.fallback_reasons.items():
        if analysis.reasons.get(call, "").startswith(UNBATCHED_IN_BLOCK) and not reason.startswith(UNBATCHED_IN_BLOCK):
            del analysis.reasons[call]  # a chain that batched these records said more
        analysis.reasons.setdefault(call, reason)
    if earlier is not None:
        _first_reasons(analysis, earlier)
    analysis.imported_used = sorted([name for name in imported_readers if uses[name]]
                                    + [name for key, name in imported_sources.items() if uses[key]])
    analysis.handed_uses = {name: uses[name] for name in imported_batchers if name not in keep}
    wanted = [name for name in foreign.migrate
              if (name in context.reader_helpers or name in context.record_sources) and name not in keep]
    if wanted:  # its callers are in other modules, whose pipelines now hand it the record
        uses = _forwarded_uses(uses + Counter(wanted), context)
    new_module = _migrate_helpers(new_module, context, uses, analysis, keep, rewriter.unbatched_sources)
    _refuse_own_helpers(analysis, context, foreign.refused)
    own = {key: maker for key, maker in context.reader_makers.items()
           if key not in context.foreign_classes and not key.startswith("*.")}
    reader_makers.explain(own, analysis.reasons, analysis.todo, analysis.fixed_calls, analysis.kept_calls)
    new_module = _drop_queue_helpers(new_module, rewriter.queue_helpers, uses, analysis, keep)
    new_module = returned_dataset.rewrite(module, new_module, analysis, rewriter.tf, options.target, keep_helpers or {})
    if find_held and tree is not None and held_records.worth_looking(source):
        new_module = _held_records(path, options, module, new_module, analysis, context, rewriter.tf, keep_helpers,
                                   foreign, handed)
    if array_queues.worth_looking(source):
        new_module = _array_queues(module, new_module, analysis, rewriter.tf, options.target)
    if analysis.pipelines:
        new_module = _prefetched_batches(module, new_module, analysis, context, tree)
        new_module, analysis.dropped_datasets = dead_datasets.remove(module, new_module, imports, source)
        new_module, dropped_readers = dead_readers.remove(module, new_module, imports, analysis.fixed_calls, source)
        analysis.fixed_calls |= dropped_readers
    if rewriter.file_seed:
        new_module = _add_file_order_seed(new_module)
    if analysis.pipelines or edits:
        new_module = _ensure_tf_import(new_module, imports, rewriter.tf)
        new_module = drop_unused_imports(module, new_module, imports, rewriter.module_loads)
    if foreign.members:  # reader classes of a family the run migrates (dispatched_readers)
        new_module, written, calls = dispatched_readers.rewrite_members(new_module, module, imports, foreign.members)
        analysis.dispatched_written = tuple(written)
        analysis.fixed_calls.update(id(call) for call in calls)
    analysis.new_module = new_module
    analysis.module_loads = rewriter.module_loads
    _finish_python_fed(analysis, fed, options)
    _explain_unfed_queues(analysis, imports, positions)
    _kept_reader_classes(analysis, options)
    analysis.factories_used = tuple(sorted({".".join(key) for key, call in context.factory_calls
                                            if id(call) in analysis.fixed_calls}))
    analysis.dispatched_used = tuple(sorted((name[2:], uses[name]) for name in uses
                                            if name.startswith("*.") and uses[name]))
    return analysis


def _python_fed_queues(analysis: FileAnalysis, options: Options, source: bytes,
                       keep: Optional[Dict[str, str]] = None) -> list:
    """python_fed.find over the module's hand-built queue constructors (QM308); `keep`: helpers
    other code calls, which keep their signature."""
    if not options.wants(PythonFedQueue.code) or not python_fed.worth_scanning(source):
        return []
    calls = [call for rule, call, _, _ in analysis.occurrences
             if rule is HandBuiltQueue and analysis.call_names[id(call)] in queue_roles.RAW_QUEUES]
    if not calls:
        return []
    return python_fed.find(analysis.module, analysis.imports, lambda node: analysis.positions.start(node)[0],
                           calls, _python_fed_tf(analysis), options.target, keep)


class _GraphOnlyRenamer(cst.CSTTransformer):
    """`X.parallel_stack(...)` (TensorFlow's) written `X.stack(...)`."""

    def __init__(self, imports: ImportMap):
        self.imports = imports

    def leave_Call(self, original_node, updated_node):
        func = updated_node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "parallel_stack" and \
                self.imports.resolve(original_node.func) in graph_state.GRAPH_ONLY:
            return updated_node.with_changes(func=func.with_changes(attr=cst.Name("stack")))
        return updated_node


def tf_name(imports: ImportMap, used) -> Optional[str]:
    """The name emitted code reaches TensorFlow by: the module's own, else `tf` or `tensorflow`
    for a new import, never a name in `used` (`import tensorflow.compat.v1 as tf` keeps its `tf`,
    the new code says `tensorflow`); None when both are taken."""
    return imports.local_name_for("tensorflow") or next(
        (name for name in ("tf", "tensorflow") if name not in used), None)


def _python_fed_tf(analysis: FileAnalysis) -> str:
    """The name the from_generator code reaches TensorFlow by, chosen as _PipelineRewriter does."""
    used = cstutil.name_uses(analysis.module)
    return tf_name(analysis.imports, used.stores | set(used.loads)) or "tf_"


def _finish_python_fed(analysis: FileAnalysis, fed: list, options: Options) -> None:
    if not fed:
        return
    changed = analysis.new_module is not analysis.module and (
        codegen.module_code(analysis.new_module) != codegen.module_code(analysis.module))
    if python_fed.finish(analysis, fed, options, PythonFedQueue, changed):
        analysis.new_module = _ensure_tf_import(analysis.new_module, analysis.imports, _python_fed_tf(analysis))


def _through_queues(body, queues: handbuilt.BlockQueues, failures, reasons: Dict[int, str]) -> None:
    """A chain that runs through an accepted hand-built queue of the block (calls of it before the
    queue's enqueue and after its dequeue) but stays: the queue stays for the chain's reason."""
    where: Dict[int, int] = {}
    for index, stmt in enumerate(body):
        for call in cstutil.calls_of(stmt):
            where[id(call)] = index
    for queue in queues.accepted.values():
        for failure in failures:
            at = [where[id(c)] for c in failure.calls if id(c) in where]
            if any(i <= queue.enqueue_index for i in at) and any(i > queue.dequeue_index for i in at):
                for call in queue.calls:
                    reasons.setdefault(id(call), failure.reason)
                break


def _explain_unfed_queues(analysis: FileAnalysis, imports: ImportMap, positions) -> None:
    """Hand-built queues no pipeline took, with no reason more precise than "not the record of a
    chain": where what they enqueue comes from. A Python-fed shape refused that its function shows
    is a buffer of the model's state primed where it is built says so instead."""
    line_of = lambda node: positions.start(node)[0]  # noqa: E731
    fed = {id(call): analysis.call_names.get(id(call)) for rule, call, _, _ in analysis.occurrences
           if rule is HandBuiltQueue and id(call) not in analysis.fixed_calls
           and (analysis.reasons.get(id(call)) or "").startswith(python_fed.REFUSED)}
    if fed:
        for call, (reason, todo) in queue_purpose.reasons(analysis.module, imports.resolve, line_of, fed).items():
            if queue_purpose.PRIMED in reason:
                analysis.reasons[call], analysis.todo[call] = reason, todo
    wanted = {id(call): analysis.call_names.get(id(call)) for rule, call, _, _ in analysis.occurrences
              if rule is HandBuiltQueue and id(call) not in analysis.fixed_calls
              and analysis.reasons.get(id(call)) in (None, handbuilt.NOT_FED)}
    if not wanted:
        return
    for call, (reason, todo) in queue_purpose.reasons(analysis.module, imports.resolve, line_of, wanted).items():
        analysis.reasons[call], analysis.todo[call] = reason, todo
        del wanted[call]
    todos: Dict[int, str] = {}
    for call, reason in handbuilt.origin_reasons(analysis.module, imports, line_of, set(wanted), todos).items():
        analysis.reasons[call] = reason
    analysis.todo.update(todos)


QUEUE_RUNNER_API = "tensorflow.train.add_queue_runner"
QUEUE_RUNNER = "tensorflow.train.QueueRunner"


def _reader_class_arguments(analysis: FileAnalysis, options: Options) -> None:
    """A reader class given as `reader=` (a slim Dataset's) in a module with queue code of its own
    but no slim provider or parallel read: slim reads it through queues wherever a provider reads
    that dataset, which is elsewhere, so it is reported here rather than left without a word when
    the module's other queue code migrates. A module of Dataset definitions alone says nothing
    (its providers, elsewhere, are reported and migrated where they are)."""
    if b"Reader" not in analysis.source or not analysis.occurrences:
        return  # a module of slim Dataset definitions alone: its readers are the providers' business
    names = set(analysis.call_names.values())
    if any(name.startswith("tensorflow.contrib.slim.") for name in names):
        return  # a provider or parallel read here: its own rules say what becomes of the reader
    for given in reader_class_arguments_of(analysis):
        node, name = given.node, given.name
        rule = rule_for(name)
        if rule is None or not options.wants(rule.code):
            continue
        line, column = analysis.positions.start(node)
        analysis.occurrences.append((rule, node, line, column))
        analysis.call_names[id(node)] = name
        analysis.reasons[id(node)] = ("it is handed over as a reader class (`reader=` at line %d), as to a slim "
                                      "Dataset, which slim reads through queues wherever a DatasetDataProvider "
                                      "reads that dataset; no provider reads it in this file"
                                      % analysis.positions.start(given.argument)[0])
        analysis.todo[id(node)] = ("migrate the DatasetDataProvider that reads this dataset (qmigrate does where "
                                   "it sees the Dataset made), or read its files with the matching tf.data dataset")
        function = uncalled_datasets.top_function(analysis.module, node)
        if function is not None:
            analysis.reader_class_functions += (function,)


def reader_class_arguments_of(analysis: FileAnalysis) -> List[named_classes.ReaderArgument]:
    """Each TensorFlow reader class given as `reader=` in the module (named_classes)."""
    cached = getattr(analysis, "_reader_arguments", None)
    if cached is None or cached[0] is not analysis.module:
        cached = analysis._reader_arguments = (analysis.module, named_classes.reader_arguments(
            analysis.module, analysis.imports, lambda name: rule_for(name) is not None))
    return cached[1]


def _supervisor_starts(analysis: FileAnalysis, suppressed: Dict[int, Set[str]]) -> None:
    """`sv.start_queue_runners(sess)` of a tf.train.Supervisor `sv` (or of the runners of the
    QUEUE_RUNNERS collection read by hand, `sv.start_queue_runners(sess, runners)`): plumbing like
    tf.train.start_queue_runners(sess), which goes with the last queue of its program."""
    held = queue_runners.supervisors(analysis.module, analysis.imports)
    if not held:
        return
    lists = queue_runners.collection_lists(analysis.module, analysis.imports)
    for call in cstutil.calls_of(analysis.module):
        if queue_runners.supervisor_starts(call, held, lists) is not None:
            analysis.add_occurrence(StartQueueRunners, call, StartQueueRunners.names[0], suppressed)


def _subclassed_queue_classes(analysis: FileAnalysis, options: Options, suppressed: Dict[int, Set[str]]) -> None:
    """A class of the module's own that subclasses a reader or queue class: queue code of its own,
    which its class's rule reports and no rule rewrites (named_classes)."""
    for named in named_classes.subclassed(analysis.module, analysis.imports):
        rule = rule_for(named.name)
        if rule is None or not options.wants(rule.code) or not analysis.add_occurrence(
                rule, named.node, named.name, suppressed):
            continue
        what = "queue" if named.name in queue_roles.RAW_QUEUES else "reader"
        analysis.reasons[id(named.node)] = (
            "`%s` subclasses %s: a %s class of the module's own, whose methods qmigrate does not follow"
            % (named.detail, short_name(named.name), what))
        analysis.todo[id(named.node)] = (
            "if what goes through it is model input, read that with tf.data and replace the class's users by hand; "
            "if it is not input (a work list, a hand-off between threads), nothing to migrate")


def _named_classes(analysis: FileAnalysis, options: Options) -> None:
    """A word on each reader or queue class named, not called, that nothing else said of the
    module accounts for (named_classes): a reader class handed to a slim Dataset in a module of
    Dataset definitions (QM110), any other name (QM004). Only in a module left as it is: a
    rewritten one says what it rewrote, and a name of the original may be gone from it."""
    covered = named_classes.covered_ids([node for _, node, _, _ in analysis.occurrences]
                                        + [node for _, node, _, _ in analysis.findings])
    slim = any(rule in SLIM_PROVIDERS or rule in SLIM_READS for rule, _, _, _ in analysis.occurrences)
    found = named_classes.find(analysis.module, analysis.imports, covered, reader_class_arguments_of(analysis), slim)
    suppressed = _suppressed_lines(analysis.module) if found and SUPPRESS_MARK.encode() in analysis.source else {}
    for named in found:
        rule = SlimReaderClassKept if named.kind == "dataset" else QueueClassNamed
        line = analysis.positions.start(named.node)[0]
        if not options.wants(rule.code) or {rule.code, "*"} & suppressed.get(line, set()):
            continue
        detail = named.detail if named.kind == "dataset" else ", ".join(
            part for part in (short_name(named.name), named.detail) if part)
        analysis.add_finding(rule, named.node, False, detail)


KEPT_READER_CLASS = "the module's providers of the Dataset read it with tf.data now"


def _kept_reader_classes(analysis: FileAnalysis, options: Options) -> None:
    """A note (QM110) on each reader class handed to a slim Dataset (`reader=`) in a module whose
    slim providers and parallel reads all migrated: the class stays, as the Dataset requires one,
    and the note says why a queue reader's name is left in a migrated file."""
    slim = [call for rule, call, _, _ in analysis.occurrences if rule in SLIM_PROVIDERS or rule in SLIM_READS]
    if not slim or not options.wants(SlimReaderClassKept.code) or b"Reader" not in analysis.source:
        return
    if any(id(call) not in analysis.fixed_calls for call in slim):
        return  # a provider left reads through the class: its own finding says so
    for given in reader_class_arguments_of(analysis):
        if id(given.argument) not in analysis.dropped_datasets:  # gone with its Dataset
            analysis.add_finding(SlimReaderClassKept, given.node, False, KEPT_READER_CLASS)


def _hand_made_runners(module: cst.Module, source: bytes,
                       imports: ImportMap) -> List[Tuple[type, cst.CSTNode, str, str]]:
    """Queue runners of the module's own making, which no call of a queue API shows: a subclass of
    `tf.train.QueueRunner`, or a runner put in the QUEUE_RUNNERS collection by hand (a copy of
    TensorFlow's queue_runner module). Their threads run code tf.data cannot take over."""
    if b"QueueRunner" not in source and b"QUEUE_RUNNERS" not in source:
        return []
    rule = rule_for(QUEUE_RUNNER_API)
    found = []
    # The collection of a loop that starts its runners' threads by hand (rules.queue_runners).
    loops = {id(loop.iter.args[0].value) for loop in cstutil.nodes_of(module, cst.For)
             if queue_runners.hand_started_loop(loop, imports)}
    # The collection read into a list a Supervisor starts (`sv.start_queue_runners(sess, runners)`):
    # that start is the plumbing, reported and removed as such.
    started = queue_runners.started_lists(module, imports)
    for node in cstutil.nodes_of(module, (cst.ClassDef, cst.Attribute)):
        if isinstance(node, cst.ClassDef):
            for base in node.bases:
                name = imports.resolve(base.value) or ""
                if name.endswith(".QueueRunner"):
                    found.append((rule, base.value, name, "`%s` subclasses %s: the threads it runs are its own code, "
                                  "which tf.data cannot take over" % (node.name.value, name)))
        elif node.attr.value == "QUEUE_RUNNERS" and (imports.resolve(node) or "").endswith("GraphKeys.QUEUE_RUNNERS"):
            if id(node) in loops:  # start_queue_runners written out: plumbing, which goes with the last queue
                found.append((queue_runners.RunnersStartedByHand, node, "tensorflow.GraphKeys.QUEUE_RUNNERS", None))
                continue
            if id(node) in started:
                continue
            found.append((rule, node, "tensorflow.GraphKeys.QUEUE_RUNNERS", _collection_use(module, node, imports) or (
                "it registers queue runners in the QUEUE_RUNNERS collection by hand: a queue runner of this module's "
                "own, whose threads tf.data cannot take over")))
    return found


def _collection_use(module: cst.Module, node: cst.Attribute, imports: ImportMap) -> Optional[Tuple[str, str]]:
    """(why, what to do) for the QUEUE_RUNNERS collection used as add_queue_runner and
    start_queue_runners use it, spelled by hand: `add_to_collection(QUEUE_RUNNERS, runner)` of a
    `runner = tf.train.QueueRunner(...)`, or `for qr in get_collection(QUEUE_RUNNERS):` starting
    `qr.create_threads(...)`. None for any other use (a queue runner module of its own)."""
    calls = [c for c in cstutil.calls_of(module) if c.args and c.args[0].value is node]
    if len(calls) != 1:
        return None
    call, name = calls[0], imports.resolve(calls[0].func) or ""
    if name.endswith(".add_to_collection") and len(calls[0].args) == 2 and isinstance(call.args[1].value, cst.Name):
        runner = call.args[1].value.value
        made = [a.value for a in cstutil.nodes_of(module, cst.Assign) if len(a.targets) == 1
                and isinstance(a.targets[0].target, cst.Name) and a.targets[0].target.value == runner]
        if len(made) == 1 and isinstance(made[0], cst.Call) and imports.resolve(made[0].func) == QUEUE_RUNNER:
            return ("it puts `%s`, a tf.train.QueueRunner, in the QUEUE_RUNNERS collection, as add_queue_runner "
                    "does; it goes with the queue that runner fills" % runner,
                    "remove it together with the queue once the queue is replaced by a dataset")
    if name.endswith(".get_collection"):
        for loop in cstutil.nodes_of(module, cst.For):
            if loop.iter is call and isinstance(loop.target, cst.Name) and any(
                    isinstance(c.func, cst.Attribute) and c.func.attr.value == "create_threads"
                    and isinstance(c.func.value, cst.Name) and c.func.value.value == loop.target.value
                    for c in cstutil.calls_of(loop.body)):
                return ("it starts the threads of every queue runner in the QUEUE_RUNNERS collection by hand "
                        "(`%s.create_threads(...)`), as tf.train.start_queue_runners does"
                        % loop.target.value,
                        "remove the loop once every input pipeline of this program uses tf.data")
    return None


def _mark_non_input_queues(analysis: FileAnalysis, options: Options) -> None:
    """Hand-built queues whose elements only go back to Python are notes (QM003), not migrations."""
    raw = [call for _, call, _, _ in analysis.occurrences if analysis.call_names[id(call)] in queue_roles.RAW_QUEUES]
    if not raw:
        return
    fetched = queue_roles.fetched_only(analysis.module, raw)
    analysis.occurrences = [(NonInputQueue if id(call) in fetched else rule, call, line, column)
                            for rule, call, line, column in analysis.occurrences
                            if id(call) not in fetched or options.wants(NonInputQueue.code)]


def _drop_thread_coordinators(analysis: FileAnalysis) -> None:
    """In a file whose only queue API is Coordinators, those only their own methods use (or the
    program's own Python threads) are no queue code (thread_coordinators): not reported. A file
    with queue code of its own keeps the findings of those that coordinate its own threads (they
    may feed those queues), saying what they do."""
    coordinators = [call for rule, call, _, _ in analysis.occurrences if rule is queue_runners.Coordinator]
    if not coordinators:
        return
    if len(coordinators) == len(analysis.occurrences):
        alone = thread_coordinators.python_threads_only(analysis.module, analysis.imports, coordinators,
                                                        threads_needed=False)
        analysis.occurrences = [o for o in analysis.occurrences if id(o[1]) not in alone]
        return
    threads_only = thread_coordinators.python_threads_only(analysis.module, analysis.imports, coordinators)
    for call in coordinators:
        if id(call) in threads_only:
            analysis.reasons[id(call)] = ("it coordinates the program's own threading.Thread workers (its uses are "
                                          "its methods and values handed to those threads), not queue runners")
            analysis.todo[id(call)] = "keep it for those threads; it goes with them if they go"


def _drop_unfed_file_matches(analysis: FileAnalysis) -> None:
    """In a file whose only queue API is `match_filenames_once` (and runner plumbing), one bound
    to a name that only TensorFlow ops other than producers read (`tf.size(files)`) feeds no
    queue: not reported. That is what a migration leaves when the variable had other uses than
    the producer it fed (MatchFilenamesOnce: fixed, the variable kept); a run on its output must
    not ask for it again."""
    matches = [call for rule, call, _, _ in analysis.occurrences if rule is MatchFilenamesOnce]
    if not matches or any(rule is not MatchFilenamesOnce and rule not in PLUMBING
                          for rule, _, _, _ in analysis.occurrences):
        return
    unfed = set()
    module = analysis.module
    scopes = [(module, [stmt for stmt in module.body if isinstance(stmt, cst.SimpleStatementLine)])] + [
        (function, dead_datasets.own_lines(function)) for function in cstutil.functions_in(module)]
    for scope, lines in scopes:
        for line in lines:
            assigned = dead_datasets.assigned_call(line)
            if assigned is None or not any(assigned[1] is call for call in matches):
                continue
            if _read_only_by_tf_ops(scope, assigned[0], analysis.imports):
                unfed.add(id(assigned[1]))
    analysis.occurrences = [o for o in analysis.occurrences if id(o[1]) not in unfed]


class _TfOpReads(cst.CSTVisitor):
    """Counts the loads of one name, and those that are an argument of a TensorFlow call that is
    no queue API (`tf.size(name)`)."""

    def __init__(self, name: str, imports: ImportMap):
        self.name, self.imports = name, imports
        self.loads = self.in_ops = 0

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.imports.resolve(node.func) or ""
        if resolved.startswith("tensorflow.") and rule_for(resolved) is None:
            self.in_ops += sum(1 for arg in node.args if isinstance(arg.value, cst.Name)
                               and arg.value.value == self.name)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.loads += node.value == self.name


def _read_only_by_tf_ops(scope: cst.CSTNode, name: str, imports: ImportMap) -> bool:
    """Whether every load of `name` in `scope` is an argument of a TensorFlow op (no queue API)."""
    reads = _TfOpReads(name, imports)
    scope.visit(reads)
    return reads.loads > 0 and reads.loads == reads.in_ops


def _may_hold_pipeline(rules: Set[type]) -> bool:
    """A pipeline needs a producer (a slice or file-name producer's rows are records themselves,
    batched or not, dequeued_rows), or slim's provider or parallel read (batched or not); a range
    producer is rewritten on its own."""
    return bool(rules & {*SLICERS, *PRODUCERS, *SLIM_PROVIDERS, *SLIM_READS, RangeInputProducer})


# Names of what builds sparse (or ragged) tensors, in any spelling.
_SPARSE = re.compile(r"[Ss]parse|VarLen|string_split|strings\.split|[Rr]agged")


@dataclass(frozen=True)
class ImportedHelper:
    """A reader helper of another module of the set, as a caller that imports it sees it."""

    helper: helpers.ReaderHelper
    tf_names: Tuple[Tuple[str, str], ...]  # names its reader's arguments read -> what they are there
    sparse: bool  # its module may build sparse tensors (see ModuleContext.may_be_sparse)


@dataclass(frozen=True)
class ImportedSource:
    """A record-source method of a class of another module of the set (`Class.method`), as a
    caller that imports that module sees it: the caller's pipelines may call it with the record
    on an object receivers.py proves an instance of `cls` (made by `mod.Class()` there)."""

    source: helpers.RecordSource  # foreign: its moved arguments read its parameters and `tf_names` only
    static: bool
    cls: cst.ClassDef
    module: cst.Module  # the class's module (its Receivers follow properties there)
    tree: Optional[ast.Module]  # that module's stdlib tree (class_attrs counts attributes on it)
    imports: ImportMap  # that module's imports
    module_name: str  # that module's dotted name in the caller's imports
    tf_names: Tuple[Tuple[str, str], ...]  # names its moved arguments read -> what they are there
    sparse: bool


@dataclass(frozen=True)
class ForeignHelpers:
    """Reader helpers that cross a module boundary (set-level work decides them: imported_helpers).

    `imported`: local name -> a helper of another module that this module's pipelines may call
    (then with the record); `migrate`: helpers of this module to migrate for their callers in
    other modules, whose pipelines all hand them the record.
    """

    imported: Dict[str, ImportedHelper] = field(default_factory=dict)
    # Record-source methods of classes of other modules, by the dotted name the job gives them
    # (`module.Class.method`, imported_helpers.method_import).
    sources: Dict[str, ImportedSource] = field(default_factory=dict)
    migrate: Tuple[str, ...] = ()
    # Helpers that stay as they are, and why: imported ones by their local name (their callers'
    # chains stay, with that reason), this module's own by name (their reader gets it).
    refused: Dict[str, str] = field(default_factory=dict)
    # Reader makers of other modules' classes, by the job's dotted name (`module.Class.method`).
    makers: Dict[str, "ImportedMaker"] = field(default_factory=dict)
    # Provider factories of other modules (provider_factories.py): (function, object, method) ->
    # (sibling, the dotted name of the class the object is made from).
    factories: Dict[Tuple[str, str, str], Tuple[str, str]] = field(default_factory=dict)
    # Reader methods of families of classes of the run (dispatched_readers): method -> (one
    # class's method as a ReaderHelper, the sibling's name, what they return: Family.kind).
    dispatched: Dict[str, Tuple[helpers.ReaderHelper, str, str]] = field(default_factory=dict)
    # This module's reader methods of such families, to migrate: (class, method).
    members: Tuple[Tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ImportedMaker:
    """A method of a class of another module that only makes a reader (reader_makers.py), and
    that module's class and trees, for receivers.py to prove an object an instance of it."""

    maker: reader_makers.Maker
    cls: cst.ClassDef
    module: cst.Module
    tree: Optional[ast.AST]
    imports: ImportMap
    module_name: str


def imported_reader_maker(source: bytes, module_name: str, key: str) -> Optional[ImportedMaker]:
    """The method `key` (`Class.method`) of a module's source as a reader maker that a caller
    importing it as `module_name` may call (None: not one). Never raises."""
    found = _class_method(source, key, lambda context: context.reader_makers)
    if found is None:
        return None
    module, tree, imports, _, maker, cls = found
    return ImportedMaker(maker, cls, module, tree, imports, module_name)


def imported_dispatched(source: bytes, class_name: str, method: str) -> Optional[helpers.ReaderHelper]:
    """The reader method `class_name.method` of a module's source (dispatched_readers) as a
    ReaderHelper, or None. Never raises."""
    try:
        module = cst.parse_module(source)
        function = dispatched_readers.method_of(module, class_name, method)
        found = dispatched_readers.reader_method(function, ImportMap(module)) if function is not None else None
    except Exception:
        return None
    return found[0] if found is not None else None


def _class_method(source: bytes, key: str, table):
    """(module, tree, ImportMap, ModuleContext, what `table(context)` holds under `key`, the
    class node) for the method `key` (`Class.method`) of a module's source, or None (it does not
    parse, or `key` is not in the table or names no top-level class). Never raises."""
    try:
        module, tree, imports, context = _source_module(source)
    except Exception:
        return None
    found = table(context).get(key)
    cls = next((stmt for stmt in module.body if isinstance(stmt, cst.ClassDef)
                and stmt.name.value == key.split(".")[0]), None)
    if found is None or cls is None or "." not in key:
        return None
    return module, tree, imports, context, found, cls


def imported_reader_helper(source: bytes, name: str) -> Optional[ImportedHelper]:
    """The top-level function `name` of a module's source as a reader helper that a caller in
    another module may call with the record (None: not one, or its reader cannot be made there).

    Only a helper that makes its reader itself (no forwarding), reads its queue parameter once and
    not the key, and whose reader's arguments read only its parameters and TensorFlow: what the
    caller's dataset is made from must mean the same in the caller's module. Never raises.
    """
    try:
        module = parse(source)
    except Exception:
        return None
    tree = stdlib_tree(source)
    imports = ImportMap(module, tree)
    function = next((stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name),
                    None)
    if function is None or function.decorators:
        return None
    helper = helpers.find_reader_helper(function, imports)
    if helper is None or helper.via is not None:
        return None
    loads = Counter(cstutil.name_uses(function.body).loads)
    if helpers.queue_reads(helper, loads) != 1 or not _key_unused(helper, loads, _attribute_loads(module, tree)):
        return None
    params = {param.name.value for param in function.params.params}
    tf_names = _tensorflow_names((used for arg in helper.reader_call.args
                                  for used in cstutil.name_uses(arg.value).loads), params, imports)
    if tf_names is None:
        return None
    code = source.decode(module.encoding, errors="replace")
    return ImportedHelper(helper, tf_names, bool(_SPARSE.search(code)))


def _tensorflow_names(names: Iterable[str], params: Set[str],
                      imports: ImportMap) -> Optional[Tuple[Tuple[str, str], ...]]:
    """What moves to a caller in another module reads `names`: each must be a parameter (not
    returned) or a name of TensorFlow there; ((name, what it is), ...) sorted, or None."""
    found = set()
    for used in names:
        if used in params:
            continue
        resolved = imports.aliases.get(used)
        if resolved is None or resolved.split(".")[0] != "tensorflow":
            return None
        found.add((used, resolved))
    return tuple(sorted(found))


def imported_record_source(source: bytes, module_name: str, key: str) -> Optional[ImportedSource]:
    """The method `key` (`Class.method`) of a module's source as a record source that a caller in
    another module, importing it as `module_name`, may call with the record (None: not one, or
    what its producer and reader are made from cannot be written there).

    The method is one _module_context finds as a record source of its class (static, or plain
    with the object first), and what moves to the caller's dataset (the producer's and reader's
    arguments, and the values only they read) reads only the method's parameters (not the
    object) and TensorFlow. Never raises."""
    method = _class_method(source, key, lambda context: context.record_sources)
    if method is None:
        return None
    if method[4].held is not None:
        return None  # its file names' dataset is built in its class's __init__, in its own module
    module, tree, imports, context, found, cls = method
    static = key in context.static_methods
    params = [param.name.value for param in found.function.params.params]
    params = set(params if static else params[1:])
    tf_names = _tensorflow_names(_moved_names(found), params, imports)
    if tf_names is None:
        return None
    code = source.decode(module.encoding, errors="replace")
    foreign = dataclasses.replace(found, foreign=True, foreign_names=tuple(sorted({n for n, _ in tf_names})))
    return ImportedSource(foreign, static, cls, module, tree, imports, module_name, tf_names,
                          bool(_SPARSE.search(code)))


@functools.lru_cache(maxsize=8)
def _source_module(source: bytes):
    """(module, stdlib tree, ImportMap, ModuleContext) of a module whose record-source methods
    callers import: parsed once per worker for all its methods and callers (read, never changed)."""
    module = parse(source)
    tree = stdlib_tree(source)
    imports = ImportMap(module, tree)
    return module, tree, imports, _module_context(module, imports, tree, source.decode(module.encoding,
                                                                                       errors="replace"))


def _moved_names(source: helpers.RecordSource) -> Set[str]:
    """The names what moves to the caller reads: those of the producer's and reader's arguments,
    and, for a local they read, those of its value (helpers.move_expression moves it with them),
    at any depth; a local's own name is not among them."""
    definitions = helpers.reaching_definitions(source.function, source.removable[-1])
    pending = [arg.value for call in (source.producer_call, source.reader_call) for arg in call.args]
    names, seen = set(), set()
    while pending:
        expr = pending.pop()
        for node in cstutil.nodes_of(expr, cst.Attribute):
            key = dotted(node)
            if key in definitions and key not in seen:
                seen.add(key)
                pending.append(definitions[key])
        for name in cstutil.name_uses(expr).loads:
            if name in definitions:
                if name not in seen:
                    seen.add(name)
                    pending.append(definitions[name])
            else:
                names.add(name)
    return names


def _add_imported_sources(context: ModuleContext, sources: Dict[str, ImportedSource]) -> Set[str]:
    """Add to the module's record sources those of other modules' classes whose class name is no
    class of this module and whose TensorFlow names mean the same here, with the Receivers of
    their modules; the dotted names (the job's) of those added."""
    own = {stmt.name.value for stmt in context.module.body if isinstance(stmt, cst.ClassDef)}
    keys = [imported_helpers.method_key(name) for name in sources]
    added = set()
    for name, found in sources.items():
        key = imported_helpers.method_key(name)
        if key.split(".")[0] in own or keys.count(key) != 1 or key in context.record_sources \
                or key in context.method_helpers:
            continue
        if any(context.imports.aliases.get(used) != resolved for used, resolved in found.tf_names):
            continue
        _add_foreign_receivers(context, found)
        context.record_sources[key] = found.source
        context.foreign_classes[key] = found.cls
        if found.static:
            context.static_methods.add(key)
        context.may_be_sparse = context.may_be_sparse or found.sparse
        added.add(name)
    return added


def _add_foreign_receivers(context: ModuleContext, found) -> None:
    """The Receivers of the module `found` (an ImportedSource or ImportedMaker) comes from, once
    per module: receivers.py follows `module.Class()` into it."""
    if found.module_name not in context.foreign_receivers:
        classes = class_attrs.ModuleClasses(found.module, lambda node: 0, set(found.imports.aliases), found.tree)
        context.foreign_receivers[found.module_name] = receivers.Receivers(found.module, classes)


def _add_imported_makers(context: ModuleContext, makers: Dict[str, ImportedMaker]) -> None:
    """Add to the module's reader makers those of other modules' classes whose class name is no
    class of this module (nor the key of another of its makers or methods), with the Receivers of
    their modules: `obj.method()` is a maker's call once receivers.py proves `obj` that class's."""
    own = {stmt.name.value for stmt in context.module.body if isinstance(stmt, cst.ClassDef)}
    keys = [imported_helpers.method_key(name) for name in makers]
    for name, found in makers.items():
        if name.startswith("*."):  # `x.method()` whatever x is: every class of the run makes one reader
            context.reader_makers.setdefault(name, found.maker)
            continue
        key = imported_helpers.method_key(name)
        if key.split(".")[0] in own or keys.count(key) != 1 or key in context.reader_makers \
                or key in context.record_sources or key in context.method_helpers:
            continue
        _add_foreign_receivers(context, found)
        context.reader_makers[key] = found.maker
        context.foreign_classes[key] = found.cls


def _add_imported_helpers(context: ModuleContext, imported: Dict[str, ImportedHelper]) -> Set[str]:
    """Add to the module's reader helpers those imported under names it neither defines nor
    rebinds, whose reader's TensorFlow names mean the same here; their local names (a helper
    called as an attribute of its module's name is keyed by that dotted text, `rec.decode`)."""
    added = set()
    for local, found in imported.items():
        if local in context.functions or local in context.reader_helpers or local in context.record_sources:
            continue
        if any(context.imports.aliases.get(used) != resolved for used, resolved in found.tf_names):
            continue
        helper = found.helper
        if helper.name != local and "." not in local:  # `from records import decode as read`: calls say `read`
            helper = dataclasses.replace(helper, function=helper.function.with_changes(name=cst.Name(local)))
        context.reader_helpers[local] = helper
        context.may_be_sparse = context.may_be_sparse or found.sparse
        added.add(local)
    return added


def _function_facts(function: cst.FunctionDef, imports: ImportMap) -> tuple:
    """(function, the reader helper, batching helper, record source and queue source it is, each
    or None): the last two are looked for only in a function that is neither of the first two,
    the queue source only in one that is no record source. All are immutable."""
    reader = helpers.find_reader_helper(function, imports)
    batcher = helpers.find_batch_helper(function, imports)
    source = queue_source = None
    if reader is None and batcher is None:
        source = helpers.find_record_source(function, imports)
        if source is None:
            queue_source = queue_sources.find(function, imports)
    return function, reader, batcher, source, queue_source


def _refuse_own_helpers(analysis: FileAnalysis, context: ModuleContext, refused: Dict[str, str]) -> None:
    """The reader of each helper of this module that stays for its callers elsewhere says why,
    unless it already says so more precisely (kept beside the migrated copy its pipelines call)."""
    for name, why in refused.items():
        helper = context.reader_helpers.get(name)
        if (helper is not None and id(helper.reader_call) not in analysis.fixed_calls
                and id(helper.reader_call) not in analysis.reasons):
            analysis.reasons[id(helper.reader_call)] = why


def _module_context(module: cst.Module, imports: ImportMap, tree: Optional[ast.AST], code: str,
                    facts: Optional[Dict[int, tuple]] = None) -> ModuleContext:
    """Module-level names, and the helper functions whose calls a pipeline may go through.

    `code`: the module's text (libcst gives back its source exactly: no need to generate it).
    `facts`: what _function_facts found of its functions with the same import map (an earlier
    analysis of the same parse), by id; those it finds are added."""
    module_names = set()
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            module_names.add(stmt.name.value)  # its body binds nothing at module level
        else:
            module_names |= cstutil.name_uses(stmt).stores
    context = ModuleContext(imports, module_names, input_fns=_input_fns(module, tree),
                            may_be_sparse=bool(_SPARSE.search(code)), module=module, tree=tree)
    attribute_names = functools.lru_cache(maxsize=None)(lambda: _attribute_loads(module, tree))
    context.reader_makers = reader_makers.of_module(module, imports)
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            _add_method_helpers(stmt, context, attribute_names, module)
    attribute_loads = None
    for stmt in module.body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        context.functions[stmt.name.value] = stmt
        known = facts.get(id(stmt)) if facts is not None else None
        if known is None or known[0] is not stmt:
            known = _function_facts(stmt, imports)
            if facts is not None:
                facts[id(stmt)] = known
        _, reader, batcher, source, queue_source = known
        if reader is None and batcher is None:
            if source is not None:
                context.record_sources[stmt.name.value] = source
            elif queue_source is not None:
                context.queue_sources[stmt.name.value] = queue_source
            continue
        loads = Counter(cstutil.name_uses(stmt.body).loads)
        if reader is not None:
            attribute_loads = attribute_loads if attribute_loads is not None else _attribute_loads(module, tree)
            if helpers.queue_reads(reader, loads) == 1 and _key_unused(reader, loads, attribute_loads):
                context.reader_helpers[stmt.name.value] = reader
        if batcher is not None and batcher.tensors_only_batched():
            context.batch_helpers[stmt.name.value] = batcher
    # A name defined twice at the top: which definition a call reaches is the later one, but its
    # helper would be rewritten at both places; neither is a helper.
    defined = Counter(stmt.name.value for stmt in module.body if isinstance(stmt, cst.FunctionDef))
    for table in (context.reader_helpers, context.record_sources, context.queue_sources, context.batch_helpers):
        for name in [name for name in table if defined[name] > 1]:
            del table[name]
    _add_forwarding_helpers(module, context)
    return context


def _add_method_helpers(cls: cst.ClassDef, context: ModuleContext, attribute_names, module: cst.Module) -> None:
    """The class's methods, and those that read the queue they are given (`self.read(queue)`):
    reader helpers under `Class.method`, when their queue is read once and the key not at all, and
    no class of the module it inherits from or that inherits from it defines that method too (the
    call could reach that one); and, on the same terms, those that make their own producer and
    reader and return what they parsed (`self.get_example()`): record sources under `Class.method`.
    `attribute_names()`: the attribute names the module reads."""
    names = Counter(method.name.value for method in cls.body.body if isinstance(method, cst.FunctionDef))
    for method in cls.body.body:
        if not isinstance(method, cst.FunctionDef):
            continue
        context.method_classes[id(method)] = cls
        params = method.params.params
        if names[method.name.value] == 1 and params and _static(method) \
                and not class_attrs.overridden(cls, method.name.value, module):
            _add_static_helper(cls, method, context, attribute_names)
            continue
        if names[method.name.value] != 1 or method.decorators or not params:
            continue  # a method defined twice, a class method or any other decorated one (no plain `self`)
        reader = helpers.find_reader_helper(method, context.imports) if len(params) > 1 else None
        if reader is None:
            source = helpers.find_record_source(method, context.imports, method=True) or held_sources.find(
                method, context.class_attrs, context.imports, context.module_names)
            if source is not None and not class_attrs.overridden(cls, method.name.value, module):
                context.record_sources["%s.%s" % (cls.name.value, method.name.value)] = source
            continue
        if reader.queue_param == params[0].name.value:
            continue
        loads = Counter(cstutil.name_uses(method.body).loads)
        if not (helpers.queue_reads(reader, loads) == 1 and _key_unused(reader, loads, attribute_names())):
            continue
        if class_attrs.overridden(cls, method.name.value, module):
            continue
        context.method_helpers["%s.%s" % (cls.name.value, method.name.value)] = reader
    _add_forwarding_methods(cls, context, names, module)


def _static(method: cst.FunctionDef) -> bool:
    """Whether `@staticmethod` is the method's one decorator."""
    return len(method.decorators) == 1 and isinstance(method.decorators[0].decorator, cst.Name) \
        and method.decorators[0].decorator.value == "staticmethod"


def _add_static_helper(cls: cst.ClassDef, method: cst.FunctionDef, context: ModuleContext, attribute_names) -> None:
    """A static method that reads the queue it is given, or makes its producer and reader, on the
    terms of _add_method_helpers: a reader or record-source method whose calls pass no object."""
    key = "%s.%s" % (cls.name.value, method.name.value)
    reader = helpers.find_reader_helper(method, context.imports)
    if reader is None:
        source = helpers.find_record_source(method, context.imports)
        if source is not None:
            context.record_sources[key] = source
            context.static_methods.add(key)
        return
    loads = Counter(cstutil.name_uses(method.body).loads)
    if reader.via is None and helpers.queue_reads(reader, loads) == 1 and _key_unused(reader, loads, attribute_names()):
        context.method_helpers[key] = reader
        context.static_methods.add(key)


def _add_forwarding_methods(cls: cst.ClassDef, context: ModuleContext, names: Counter, module: cst.Module) -> None:
    """Methods that pass their queue parameter on to a reader method of the class
    (`self.read_image(queue)`), and use it for nothing else, read through it (any depth), on the
    terms of _add_method_helpers."""
    found = True
    while found:
        found = False
        for method in cls.body.body:
            if not isinstance(method, cst.FunctionDef):
                continue
            name = "%s.%s" % (cls.name.value, method.name.value)
            params = method.params.params
            if name in context.method_helpers or name in context.record_sources or names[method.name.value] != 1 \
                    or method.decorators or len(params) < 2:
                continue
            helper = helpers.find_forwarding_method(method, cls.name.value, context.method_helpers)
            if helper is None or helper.queue_param == params[0].name.value \
                    or Counter(cstutil.name_uses(method.body).loads)[helper.queue_param] != 1 \
                    or class_attrs.overridden(cls, method.name.value, module):
                continue
            context.method_helpers[name] = helper
            found = True


def _helper_of(name: str, context: ModuleContext) -> Optional[helpers.ReaderHelper]:
    """The reader helper (function) or reader method (`Class.method`) of that name."""
    return context.method_helpers.get(name) if "." in name else context.reader_helpers.get(name)


def _add_forwarding_helpers(module: cst.Module, context: ModuleContext) -> None:
    """Functions that pass their queue parameter on to a reader helper, and use it for nothing
    else, read through it: followed to any depth (each found one may be forwarded to in turn)."""
    taken = set(context.reader_helpers) | set(context.batch_helpers) | set(context.record_sources) | set(
        context.queue_sources)
    functions = [stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value not in taken]
    found = True
    while found:
        found = False
        for function in functions:
            name = function.name.value
            if name in context.reader_helpers:
                continue
            helper = helpers.find_forwarding_helper(function, context.reader_helpers)
            if helper is not None and Counter(cstutil.name_uses(function.body).loads)[helper.queue_param] == 1:
                context.reader_helpers[name] = helper
                found = True


def _forwarded_uses(uses: Counter, context: ModuleContext) -> Counter:
    """The helper uses of the migrated pipelines, with the call each migrated forwarding helper
    makes of the helper it forwards to (that call is migrated with it, once however often it is
    called)."""
    expanded = Counter(uses)
    done = set()
    pending = [name for name in uses if uses[name]]
    while pending:
        name = pending.pop()
        helper = _helper_of(name, context)
        if name in done or helper is None or helper.via is None:
            continue
        done.add(name)
        inner = helpers.forwarded_to(name, helper)
        expanded[inner] += 1
        pending.append(inner)
    return expanded


def _keep_forwarded(keep: Dict[str, str], context: ModuleContext) -> Dict[str, str]:
    """`keep`, with the helpers that a kept forwarding helper passes its queue to: kept as it is,
    it still calls them with a queue."""
    keep = dict(keep)
    pending = list(keep)
    while pending:
        name = pending.pop()
        helper = _helper_of(name, context)
        inner = helpers.forwarded_to(name, helper) if helper is not None and helper.via is not None else None
        if inner is None or inner in keep:
            continue
        keep[inner] = "%s() (itself kept as it was)" % helper.name
        pending.append(inner)
    return keep


def _input_fns(module: cst.Module, tree: Optional[ast.AST]) -> Set[str]:
    """Functions Estimators call: named `*input_fn`, or passed as `input_fn=` (from the stdlib tree
    when there is one: the same answer, faster)."""
    names = set()
    if tree is not None:
        for node in astindex.nodes(tree, ast.FunctionDef, ast.AsyncFunctionDef, ast.keyword):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.endswith("input_fn"):
                names.add(node.name)
            elif isinstance(node, ast.keyword) and node.arg == "input_fn" and isinstance(node.value, ast.Name):
                names.add(node.value.id)
        return names
    for node in cstutil.functions_in(module):
        if node.name.value.endswith("input_fn"):
            names.add(node.name.value)
    for call in cstutil.calls_of(module):
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "input_fn" and isinstance(arg.value, cst.Name):
                names.add(arg.value.value)
    return names


def _key_unused(reader: helpers.ReaderHelper, loads: Counter, attribute_loads: Set[str]) -> bool:
    """The key a reader helper reads (`_`, a name, or `result.key`) is read by nothing."""
    key = cstutil.single_assign(reader.read_stmt)[0].elements[0].value
    if isinstance(key, cst.Name):
        return key.value == "_" or not loads[key.value]
    return isinstance(key, cst.Attribute) and key.attr.value not in attribute_loads


def _first_reasons(analysis: FileAnalysis, earlier: FileAnalysis) -> None:
    """A call whose chain stays because a helper is kept for this file's callers that stay (their
    reason names _LOCAL_CALLERS) says why its chain stayed before anything was kept, if it did:
    that is the cause (one of those callers), the keeping only its consequence."""
    for key, reason in earlier.reasons.items():
        if key not in earlier.fixed_calls and key not in analysis.fixed_calls \
                and _LOCAL_CALLERS in analysis.reasons.get(key, "") and _LOCAL_CALLERS not in reason:
            analysis.reasons[key] = reason


def _partly_used_helpers(module: cst.Module, uses: Counter, tree: Optional[ast.AST],
                         context: ModuleContext) -> Set[str]:
    """Helpers some of whose uses were migrated calls, but not all (a use that is no call, such as
    `map(read_example, ...)`, is never migrated)."""
    if not uses:
        return set()
    if tree is not None:  # the same count, from the stdlib tree: several times faster to walk
        loads = Counter(node.id for node in astindex.nodes(tree, ast.Name) if isinstance(node.ctx, ast.Load))
    else:
        loads = Counter(cstutil.name_uses(module).loads)
        loads.subtract(function.name.value for function in cstutil.functions_in(module))  # a def's own name
    # A method helper (`Class.method`) is used through attributes of the object (class_attrs).
    for name in uses:
        if name.startswith("*."):  # a family's method (dispatched_readers): api counts its calls
            loads[name] = uses[name]
        elif "." in name and name in context.reader_helpers:
            # A helper of another module called as an attribute of its module's name (`data_utils.read`).
            base, _, attr = name.partition(".")
            loads[name] = sum(1 for node in astindex.nodes(tree, ast.Attribute) if node.attr == attr and isinstance(
                node.value, ast.Name) and node.value.id == base) if tree is not None else -1
        elif name in context.foreign_classes:
            # A method of another module's class: every `.method` here must be one of these calls.
            method = name.rsplit(".", 1)[1]
            loads[name] = sum(1 for node in astindex.nodes(tree, ast.Attribute) if node.attr == method) \
                if tree is not None else -1
        elif "." in name:
            attrs = context.class_attrs((context.method_helpers.get(name) or context.record_sources[name]).function,
                                        static=name in context.static_methods)
            # `self` handed to other code may call the method anywhere: then it is never all migrated.
            loads[name] = attrs.uses_of(name.rsplit(".", 1)[1]) if attrs is not None and not attrs.escapes else -1
    return {name for name in uses if uses[name] != loads[name]}


def _attribute_loads(module: cst.Module, tree: Optional[ast.AST]) -> Set[str]:
    """cstutil.attribute_loads(module), from the stdlib tree when there is one: attribute names
    read anywhere, those assigned to by `=` (directly or unpacked) aside. libcst also sees the
    dotted module names of imports as attributes (`import a.b.c` reads `b` and `c`)."""
    if tree is None:
        return cstutil.attribute_loads(module)
    stored, imported = set(), set()
    for node in astindex.nodes(tree, ast.Import, ast.ImportFrom, ast.Assign):
        if isinstance(node, ast.Import):
            imported.update(part for alias in node.names for part in alias.name.split(".")[1:])
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.update(node.module.split(".")[1:])
        elif isinstance(node, ast.Assign):
            targets = list(node.targets)
            while targets:
                target = targets.pop()
                if isinstance(target, (ast.Tuple, ast.List)):
                    targets += [e.value if isinstance(e, ast.Starred) else e for e in target.elts]
                elif isinstance(target, ast.Attribute):
                    stored.add(id(target))
    return imported | {node.attr for node in astindex.nodes(tree, ast.Attribute) if id(node) not in stored}


def _migrate_helpers(module: cst.Module, context: ModuleContext, uses: Counter, analysis: FileAnalysis,
                     keep: Dict[str, str], read_in_place: Set[str] = frozenset()) -> cst.Module:
    """Give every helper the migrated pipelines call its new shape (record in, or batch in).

    A helper in `keep` (other code still calls it with a queue or tensors to batch) stays as it
    is; its migrated copy, under the name the pipelines call, follows it. A kept record source in
    `read_in_place` had its own read rewritten: its copy is made from its original.
    """
    body = []
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and any(uses[name] for name in uses if "." in name):
            stmt = _migrate_method_helpers(stmt, context, uses, analysis, keep)
        body.append(stmt)
        if not isinstance(stmt, cst.FunctionDef) or not uses[stmt.name.value]:
            continue
        name = stmt.name.value
        if name in context.reader_helpers and context.reader_helpers[name].via is not None:
            helper = context.reader_helpers[name]
            callee = helper.via[0].name
            migrated = helpers.migrate_forwarding_helper(stmt, helper, context.kept_helpers.get(callee, callee))
            calls = []  # the reader is the innermost helper's: it is counted there
        elif name in context.reader_helpers:
            helper = context.reader_helpers[name]
            migrated = helpers.migrate_reader_helper(stmt, helper)
            calls = [helper.reader_call]
        elif name in context.record_sources:
            helper = context.record_sources[name]
            migrated = helpers.migrate_record_source(helper.function if name in read_in_place else stmt, helper)
            calls = [helper.producer_call, helper.reader_call]
        elif name in context.batch_helpers:
            helper = context.batch_helpers[name]
            migrated = helpers.migrate_batch_helper(stmt, helper)
            calls = [site.call for site in helper.sites]
        elif name in context.queue_sources:
            helper = context.queue_sources[name]
            migrated = queue_sources.migrate(stmt, helper)
            calls = [helper.call]
        else:
            continue
        if name not in keep:
            body[-1] = migrated
            analysis.fixed_calls.update(id(call) for call in calls)
            analysis.changed_helpers.append(name)
            continue
        copy_name = context.kept_helpers[name]
        blank = [line for line in stmt.leading_lines if line.comment is None] or [cst.EmptyLine(indent=False)]
        # the copy is a function of its own: what only its queue code read goes (dead_readers pairs
        # the functions of the module by name, and the copy's name is new)
        copy = dead_readers.without_dead_values(migrated, stmt)
        body.append(copy.with_changes(name=cst.Name(copy_name), leading_lines=blank))
        # (a record source whose own read was rewritten in place: its calls are gone from the original)
        left = {id(call) for call in cstutil.calls_of(stmt)} if name in read_in_place else None
        for call in calls:
            if left is not None and id(call) not in left:
                analysis.fixed_calls.add(id(call))
                continue
            analysis.fixed_calls.discard(id(call))  # the pipelines' matches counted it: it stays
            if keep[name] != _LOCAL_CALLERS:  # kept for other modules' callers, which count their own queues
                analysis.kept_calls.add(id(call))
            analysis.reasons[id(call)] = _KEPT_REASON % (name, keep[name], copy_name)
            analysis.todo[id(call)] = _KEPT_TODO % (name, copy_name)
    return module.with_changes(body=body)


def _migrate_method_helpers(cls: cst.ClassDef, context: ModuleContext, uses: Counter, analysis: FileAnalysis,
                            keep: Dict[str, str]) -> cst.ClassDef:
    """The class with each reader method and record-source method the migrated pipelines call
    taking the record (a method some other code still calls as it was is in `keep`: its pipelines
    were not migrated either)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return cls
    body = []
    for stmt in cls.body.body:
        name = "%s.%s" % (cls.name.value, stmt.name.value) if isinstance(stmt, cst.FunctionDef) else None
        helper = context.method_helpers.get(name)
        source = context.record_sources.get(name) if name else None
        if helper is not None and uses[name] and name not in keep and helper.via is not None:
            stmt = helpers.migrate_forwarding_helper(stmt, helper, helper.via[0].name)
            analysis.changed_helpers.append(name)  # the reader is the innermost method's: counted there
        elif helper is not None and uses[name] and name not in keep:
            stmt = helpers.migrate_reader_helper(stmt, helper)
            analysis.fixed_calls.add(id(helper.reader_call))
            analysis.changed_helpers.append(name)
        elif source is not None and uses[name] and name not in keep:
            stmt = helpers.migrate_record_source(stmt, source, method=name not in context.static_methods)
            analysis.fixed_calls.update((id(source.producer_call), id(source.reader_call)))
            analysis.changed_helpers.append(name)
        elif helper is not None and uses[name] and name in context.kept_helpers:
            # Kept for callers that still hand it a queue; the migrated pipelines call its copy.
            body.append(stmt)
            copy_name = context.kept_helpers[name]
            blank = [line for line in stmt.leading_lines if line.comment is None] or [cst.EmptyLine(indent=False)]
            stmt = helpers.migrate_reader_helper(stmt, helper).with_changes(name=cst.Name(copy_name),
                                                                            leading_lines=blank)
            call = helper.reader_call
            analysis.fixed_calls.discard(id(call))  # the pipelines' matches counted it: it stays
            if keep[name] != _LOCAL_CALLERS:  # kept for other modules' callers, which count their own queues
                analysis.kept_calls.add(id(call))
            analysis.reasons[id(call)] = _KEPT_REASON % (name.rsplit(".", 1)[1], keep[name], copy_name)
            analysis.todo[id(call)] = _KEPT_TODO % (name.rsplit(".", 1)[1], copy_name)
        body.append(stmt)
    return cls.with_changes(body=cls.body.with_changes(body=body))


_QUEUE_HELPER_KEPT = ("%s() is kept as it was for %s; the migrated pipelines no longer call it (its queue is "
                      "their dataset's shuffle and threads)")


def _drop_queue_helpers(module: cst.Module, queue_helpers: handbuilt.QueueHelpers, uses: Counter,
                        analysis: FileAnalysis, keep: Dict[str, str]) -> cst.Module:
    """Remove the queue helpers every call of which was migrated (the pipelines wrote their queue as
    dataset stages); a helper other code still calls stays as it is, its queue reported."""
    dropped = set()
    for helper in queue_helpers.found():
        name = helper.function.name.value
        if not isinstance(helper, handbuilt.QueueHelper) or not uses[name]:
            continue
        if name in keep:
            for call in helper.calls:
                analysis.kept_calls.add(id(call))
                analysis.reasons[id(call)] = _QUEUE_HELPER_KEPT % (name, keep[name])
                analysis.todo[id(call)] = "migrate those callers too, then delete %s()" % name
            continue
        dropped.add(name)
        analysis.fixed_calls.update(id(call) for call in helper.calls)
        analysis.changed_helpers.append(name)
    if not dropped:
        return module
    body = [stmt for stmt in module.body if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value in dropped)]
    return module.with_changes(body=body)


# Standard-library modules whose import does nothing but bind the name (no registration, no
# state a program relies on), and which queue code used for its threads and capacities
# (`num_threads = multiprocessing.cpu_count()`): once the rewrite removed their last use, the
# import would be left unused (a new lint error in a file qmigrate wrote).
_DROPPABLE_STDLIB = frozenset(("multiprocessing", "threading", "queue", "time", "math", "random"))


def drop_unused_imports(old: cst.Module, new: cst.Module, imports: ImportMap,
                        before: Optional[Counter] = None) -> cst.Module:
    """Remove the imports of TensorFlow, and of the standard-library modules of
    `_DROPPABLE_STDLIB`, that the module used before the rewrite and no longer uses (they served
    only the queue code). An import the module did not use before stays (it is the user's).

    `before`: the old module's name loads, when already counted.
    """
    before = before if before is not None else Counter(cstutil.name_uses(old).loads)
    after = cstutil.module_loads(new, old, before)
    dead = {name for name, target in imports.aliases.items()
            if (target.split(".")[0] == "tensorflow" or target.split(".")[0] in _DROPPABLE_STDLIB)
            and before[name] and not after[name]}
    if not dead:
        return new
    # Only statements that bind a dead name can hold its import: each is pruned as the module's
    # only statement would be (the others stay the very same nodes).
    pruner, body = _ImportPruner(dead), []
    for statement in new.body:
        binds = cstutil.top_level_names(statement)[1]
        body.extend(new.with_changes(body=[statement]).visit(pruner).body if binds & dead else [statement])
    return new.with_changes(body=body)


class _ImportPruner(cstutil.StatementTransformer):
    def __init__(self, dead: Set[str]):
        self.dead = dead

    def _bound_name(self, alias: cst.ImportAlias) -> str:
        if alias.asname is not None:
            return alias.asname.name.value
        return cstutil.dotted_head(alias.name)

    def _prune(self, updated_node):
        if isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        kept = [alias for alias in updated_node.names if self._bound_name(alias) not in self.dead]
        if len(kept) == len(updated_node.names):
            return updated_node
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(names=kept)

    def leave_Import(self, original_node, updated_node):
        return self._prune(updated_node)

    def leave_SimpleStatementLine(self, original_node, updated_node):
        # `slim = tf.contrib.slim`, an alias made by assignment, goes with its last use.
        assign = cstutil.single_assign(updated_node)
        if assign and isinstance(assign[0], cst.Name) and assign[0].value in self.dead and dotted(assign[1]):
            return cst.RemoveFromParent()
        return updated_node

    def leave_ImportFrom(self, original_node, updated_node):
        return self._prune(updated_node)


def remove_plumbing(analysis: FileAnalysis, set_has_migrated_pipelines: bool, set_has_queues_left: bool) -> None:
    """Drop queue-runner plumbing from an analysed file when no queue can need it any more."""
    if analysis.remaining_queue_calls or set_has_queues_left:
        return
    if not (analysis.pipelines or set_has_migrated_pipelines):
        return
    plumbing = [(rule, call) for rule, call, _, _ in analysis.occurrences if rule in PLUMBING]
    if not plumbing:
        return
    saved = saved_graphs.first_load(analysis.source)
    if saved is not None:  # the saved graph's queue runners start here too
        for rule, call in plumbing:
            analysis.reasons[id(call)] = saved_graphs.reason(*saved)
        return
    loads = cstutil.module_loads(analysis.new_module, analysis.module, analysis.module_loads)
    imports = ImportMap.of_version(analysis.new_module, analysis.module, analysis.imports)
    new_module, removed, reasons = queue_runners.remove_plumbing(analysis.new_module, imports, loads)
    left = Counter(rule.code for rule, _ in plumbing)
    # A Coordinator whose last uses went with the runners: gone on a second look (none is needed
    # once every plumbing call is gone; the counts are those matched to the calls below).
    while removed and any(left[code] > sum(n for (_, c), n in removed.items() if c == code) for code in left):
        again, more, reasons_again = queue_runners.remove_plumbing(new_module, ImportMap(new_module))
        if not more:
            break
        new_module, reasons = again, reasons_again
        for key, count in more.items():
            removed[key] = removed.get(key, 0) + count
    new_module = dead_readers.drop_dead_values(analysis.module, new_module)
    # analysis.imports is the old module's map (from its stdlib tree: the same as from its CST)
    analysis.new_module = drop_unused_imports(analysis.module, new_module, analysis.imports,
                                              analysis.module_loads)
    # Calls in the rewritten module are new nodes; match them to the originals by the classes and
    # functions around them, and by order there (a coord of train() is not the one of evaluate()).
    paths = _plumbing_paths(analysis)
    left_over: List[Tuple[type, cst.CSTNode]] = []
    for rule, call in plumbing:
        key = (paths.get(id(call), ()), rule.code)
        if removed.get(key):
            removed[key] -= 1
            analysis.fixed_calls.add(id(call))
        elif key in reasons:
            _keep_plumbing(analysis, rule, call, reasons[key])
        else:
            left_over.append((rule, call))
    by_code = Counter()
    for (_, code), count in removed.items():
        by_code[code] += count
    any_reason = {}
    for (_, code), why in reasons.items():
        any_reason.setdefault(code, why)
    shared = None  # ids of the calls on a line with other statements (`coord = ...; threads = ...`)
    for rule, call in left_over:  # a path not found again (a function the rewrite renamed): by order
        code = rule.code
        if by_code[code]:
            by_code[code] -= 1
            analysis.fixed_calls.add(id(call))
        elif code in any_reason:
            _keep_plumbing(analysis, rule, call, any_reason[code])
        else:
            if shared is None:
                shared = {id(c) for line in cstutil.nodes_of(analysis.module, cst.SimpleStatementLine)
                          if len(line.body) > 1 for c in cstutil.calls_of(line)}
            if id(call) in shared:
                analysis.reasons[id(call)] = ("it shares its line with other statements (`;`), which qmigrate does "
                                              "not take apart to remove it")


def _keep_plumbing(analysis: FileAnalysis, rule, call: cst.CSTNode, why: str) -> None:
    """Plumbing that stays in a file with no queue call left: a Coordinator that still works
    without runners asks for no change (a note: `--check` must not fail a build on it); anything
    else, a runner start kept, is a finding with its reason."""
    if rule is queue_runners.Coordinator and isinstance(why, queue_runners.StillWorks):
        analysis.kept_as_notes[id(call)] = why
    else:
        analysis.reasons[id(call)] = why


def _batching_hints(rule, call: cst.CSTNode) -> str:
    """What the to-do of a batching left as it is must add for its own arguments: `padded_batch`
    for `dynamic_pad=True` (`batch` fails on records of different shapes), and dropping the last
    partial batch unless `allow_smaller_final_batch=True` (`batch` keeps it)."""
    if rule not in BATCHERS + JOINERS or not isinstance(call, cst.Call):
        return ""
    given = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    hints = []
    if isinstance(given.get("dynamic_pad"), cst.Name) and given["dynamic_pad"].value == "True":
        hints.append("padded_batch(n, padded_shapes) in place of batch(n), as dynamic_pad=True padded")
    smaller = given.get("allow_smaller_final_batch")
    if not (isinstance(smaller, cst.Name) and smaller.value == "True"):
        hints.append("drop the last partial batch as the queue did (tf.contrib.data.batch_and_drop_remainder(n) on "
                     "TF 1.8, batch(n, drop_remainder=True) from 1.10)")
    return "".join("; " + hint for hint in hints)


def _plumbing_paths(analysis: FileAnalysis) -> Dict[int, Tuple[str, ...]]:
    """id(plumbing call) -> the names of the classes and functions around it, outermost first
    (from the stdlib tree's line ranges; none without a tree)."""
    if analysis.tree is None:
        return {}
    scopes = sorted(((node.lineno, node.end_lineno, node.name) for node in astindex.nodes(
        analysis.tree, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)), key=lambda scope: scope[0])
    return {id(call): tuple(name for start, end, name in scopes if start <= line <= end)
            for rule, call, line, _ in analysis.occurrences if rule in PLUMBING}


def verify(analysis: FileAnalysis) -> Optional[str]:
    """None when the new source parses; otherwise why it does not (then nothing may be written)."""
    if analysis.new_module is analysis.module:
        return None
    code = analysis.new_bytes()
    if analysis.tree is not None and _stdlib_parses(None if analysis.queues_moved else analysis.module,
                                                    analysis.new_module, code):
        # Both parsers took the old source: the stdlib's verdict on the new one is libcst's too, and
        # several times faster. libcst still parses what the stdlib refuses, to say why in its words.
        return None
    try:
        cst.parse_module(code)
    except cst.ParserSyntaxError as error:
        return "the rewritten source does not parse (%s); left unchanged" % error.message
    return None


def _stdlib_parses(old: Optional[cst.Module], new: cst.Module, code: bytes) -> bool:
    """Whether the stdlib parses `new` (`code`), made from `old`, a parse of a source both
    parsers took: only its top-level statements that `old` does not have are parsed (they parse
    one by one), unless a future import changes the grammar. `old` None (the analysis started
    from a module qmigrate made, method_queues' moves): all of it is parsed."""
    if old is None or not new.has_trailing_newline or b"barry_as_FLUFL" in code:
        return stdlib_tree(code) is not None
    return stdlib_tree(codegen.changed_text(old, new)) is not None


def _suppressed_lines(module: cst.Module) -> Dict[int, Set[str]]:
    return suppressed_lines_of(module.code)


def suppressed_lines_of(text: str) -> Dict[int, Set[str]]:
    """Line → codes silenced by `# qmigrate: ignore[QM301,QM302]` (bare: all codes)."""
    out: Dict[int, Set[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        at = line.find("#")
        if at < 0 or SUPPRESS_MARK not in line[at:]:
            continue
        rest = line[at:].split(SUPPRESS_MARK, 1)[1]
        if rest.startswith("["):
            out[number] = {code.strip() for code in rest[1:].split("]", 1)[0].split(",")}
        else:
            out[number] = {"*"}
    return out


class _CallCollector(cst.CSTVisitor):
    def __init__(self, imports: ImportMap):
        self.imports = imports
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if rule_for(self.imports.resolve(node.func)) is not None:
            self.calls.append(node)


def _queue_calls(module: cst.Module, imports: ImportMap) -> List[cst.Call]:
    collector = _CallCollector(imports)
    cstutil.walk(module, collector)
    return collector.calls


class _PipelineRewriter(cst.CSTTransformer):
    """Rewrites every recognised pipeline in place, one root block at a time (all its edits or none)."""

    def __init__(self, module: cst.Module, context: ModuleContext, options: Options, analysis: FileAnalysis,
                 edits: towers.TowerEdits, keep: Dict[str, str], unbatched_sources: Set[str] = frozenset()):
        self.module = module
        # Record-source helpers whose own unbatched read is rewritten in place (no caller links them);
        # those that were not, for want of that knowledge.
        self.unbatched_sources = unbatched_sources
        self.deferred_unbatched: Set[str] = set()
        self.context = context
        self.edits = edits
        self.file_seed = False
        self.consumer_statements = {}
        self.per_tower_calls = {}
        for consumer in edits.consumers:
            if consumer.kind == "per_tower":
                self.per_tower_calls[id(consumer.source_call)] = consumer
                continue
            for stmt in (consumer.source_stmt, consumer.prefetch_stmt, consumer.dequeue_stmt, consumer.use_stmt):
                if stmt is not None:
                    self.consumer_statements[id(stmt)] = consumer
        self.imports = imports = context.imports
        self.helper_uses: Counter = Counter()
        self.target = options.target
        self.seed = options.seed
        self.wants = options.wants
        self.analysis = analysis
        self.has_range_producers = any(rule is RangeInputProducer for rule, _, _, _ in analysis.occurrences)
        self.has_queues = any(rule is HandBuiltQueue for rule, _, _, _ in analysis.occurrences)
        self.queue_helpers = handbuilt.QueueHelpers(context.functions, imports, module.code_for_node,
                                                    context.line_of, module)
        uses = cstutil.name_uses(module)
        self.module_loads = Counter(uses.loads)
        self.names = NamePool(set(uses.stores) | set(uses.loads))
        self.tf = tf_name(imports, self.names.used) or self.names.fresh("tf")
        self.names.used.add(self.tf)
        readers = set(context.reader_helpers) | set(context.record_sources)
        # A reader method of this module's class kept for other callers gets a migrated copy beside
        # it (method_copies.py), which the migrated pipelines call; any other kept method keeps its
        # callers' pipelines as they are.
        copies = method_copies.copy_names(keep, _LOCAL_CALLERS, context, self.names, module)
        context.kept_methods = {name: why for name, why in keep.items() if name not in copies and (
            name in context.method_helpers or "." in name and name in context.record_sources)}
        context.kept_helpers = {name: self.names.fresh(helpers.migrated_name(name, name in readers))
                                for name in sorted(keep) if "." not in name and (
                                    name in readers or name in context.batch_helpers)}
        context.kept_helpers.update((name, self.names.fresh(queue_sources.copy_name(name)))
                                    for name in sorted(keep) if name in context.queue_sources)
        context.kept_helpers.update(copies)
        self.iterator_holder = self.names.fresh("input_iterators") if edits.consumers else None
        self.scopes: List[cst.CSTNode] = [module]
        self._core_consumed: Dict[Tuple[str, str], bool] = {}  # estimator_inputs.core_consumed, asked once
        self._module_body = False  # set while the module's own body is rewritten (leave_Module)
        self.parents: List[cst.CSTNode] = []
        # Why a record-source helper's own chain stops (it returns the record instead of batching):
        # said only when no caller of it has a better reason.
        self.fallback_reasons: Dict[int, str] = {}
        # id(class) -> bindings of readers and producers on `self` that pipelines of other methods
        # moved into their chains: removed with the class's rewrite, once nothing reads them.
        self.attr_bindings: Dict[int, List[class_attrs.Binding]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.parents.append(node)
        if type(node) is cst.FunctionDef:
            self.scopes.append(node)
        # Pipelines are rewritten block by block: only tower edits change calls inside expressions
        # (leave_Call), anywhere for per-tower pipelines, else in the functions that pass a shard
        # on. Elsewhere going into expressions would only copy them.
        # A simple statement holds no block: unless calls in it change, it is not entered at all
        # (and so stays the very node it was).
        return super().on_visit(node) and (
            cstutil.holds_statements(node) and type(node) is not cst.SimpleStatementLine
            or bool(self.per_tower_calls) or bool(self.edits.passthrough)
            and self._function_name() in self.edits.passthrough)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        self.parents.pop()
        if type(original_node) is cst.FunctionDef:
            self.scopes.pop()
        if result is not original_node and cstutil.holds_statements(original_node) \
                and same_tree(result, original_node):
            # Unchanged: the node itself, not a copy (what reads the module later, such as the
            # statement memo and name counts, then knows it by its identity).
            return original_node
        return result

    def _function_name(self) -> str:
        scope = self.scopes[-1]
        return scope.name.value if isinstance(scope, cst.FunctionDef) and len(self.scopes) == 2 else ""

    def _qualified_name(self) -> str:
        """`f` in a top-level function, `C.m` in a method of a top-level class, else ""."""
        defs = [node for node in self.parents if isinstance(node, (cst.FunctionDef, cst.ClassDef))]
        kinds = tuple(type(node) for node in defs)
        if kinds == (cst.FunctionDef,):
            return defs[0].name.value
        if kinds == (cst.ClassDef, cst.FunctionDef):
            return "%s.%s" % (defs[0].name.value, defs[1].name.value)
        return ""

    def _source_name(self, scope: cst.CSTNode) -> Optional[str]:
        """The record source `scope` is (`f`, or `Class.method`), if it is one."""
        if not isinstance(scope, cst.FunctionDef):
            return None
        for name in (scope.name.value, self._qualified_name()):
            source = self.context.record_sources.get(name)
            if source is not None and source.function is scope:
                return name
        return None

    def _hold_init(self, binding, producer) -> None:
        """The queue's binding in __init__ becomes the file names' dataset (held_sources.py)."""
        attribute = "%s.%s" % (binding.method.params.params[0].name.value, binding.attr)
        texts = held_sources.init_statements(producer, attribute, self.tf, self.target)
        statements = [cst.parse_statement(text, self.module.config_for_parsing) for text in texts]
        held = held_sources.with_replacement(binding, statements)
        self.attr_bindings.setdefault(id(self.context.method_classes[id(binding.method)]), []).append(held)

    def leave_ClassDef(self, original_node, updated_node):
        bindings = self.attr_bindings.pop(id(original_node), ())
        return class_attrs.remove_bindings(updated_node, bindings) if bindings else updated_node

    def leave_FunctionDef(self, original_node, updated_node):
        name = original_node.name.value
        if len(self.scopes) == 2 and (name in self.edits.shard_functions or name in self.edits.passthrough):
            return towers.with_tower_params(updated_node, self.edits.strategy)
        return updated_node

    def leave_Call(self, original_node, updated_node):
        consumer = self.per_tower_calls.get(id(original_node))
        if consumer is not None:  # each tower's own pipeline now reads only its shard
            return towers.with_keywords(updated_node, towers.tower_keywords(
                consumer, "shard", None, self.module.config_for_parsing))
        callee = self.edits.passthrough.get(self._function_name())
        if callee is not None and dotted(original_node.func) == callee:
            return towers.with_keywords(updated_node, towers.passed_on(self.edits.strategy))
        return updated_node

    def leave_IndentedBlock(self, original_node, updated_node):
        if isinstance(self.parents[-2], cst.With):
            return updated_node  # opened up by the enclosing root block
        return updated_node.with_changes(body=self._rewrite_root(original_node.body, updated_node.body))

    def leave_Module(self, original_node, updated_node):
        self._module_body = True  # the root block is the module's own body, not an indented block
        try:
            return updated_node.with_changes(body=self._rewrite_root(original_node.body, updated_node.body))
        finally:
            self._module_body = False

    def _rewrite_root(self, original_body, updated_body):
        leaves = blocks.flatten(original_body, updated_body)
        originals = [leaf.original for leaf in leaves]
        queues = handbuilt.find(originals, self.scopes[-1], self.imports, self.module.code_for_node,
                                self.queue_helpers, self.context.module_names,
                                reader_makers.names(self.context.reader_makers)) if self.has_queues else None
        found = recognise_block(originals, self.scopes[-1], self.context, self.names, self.module.code_for_node,
                                queues, [leaf.withs for leaf in leaves], self._exclusive_loads())
        scope = self.scopes[-1]
        source_name = self._source_name(scope)
        source = self.context.record_sources.get(source_name)
        reasons = self.fallback_reasons if source is not None else self.analysis.reasons
        for failure in found.failures:
            for call in failure.calls:
                if reasons.get(id(call)) == UNBATCHED_IN_BLOCK:  # said by an inner block: this one knows more
                    del reasons[id(call)]
                reasons.setdefault(id(call), failure.reason)
            if failure.finding is not None and self.wants(failure.finding[0].code):
                self.analysis.add_finding(failure.finding[0], failure.finding[1], False)
        if queues and queues.accepted and found.failures:
            _through_queues(originals, queues, found.failures, reasons)
        for call, reason in handbuilt.reasons(queues) if queues else ():
            reasons.setdefault(id(call), reason)
        for call, todo in handbuilt.todos(queues) if queues else ():
            self.analysis.todo.setdefault(id(call), todo)
        for match in [m for m in found.matches if any(id(c) in self.analysis.suppressed_calls for c in m.calls)]:
            found.matches.remove(match)  # a `# qmigrate: ignore` on any of its lines keeps the whole pipeline
            for call in match.calls:
                self.analysis.reasons.setdefault(id(call), "a line of its pipeline says `# qmigrate: ignore`")
        for match in [m for m in found.matches if m.finding is not None and not self.wants(m.finding[0].code)]:
            found.matches.remove(match)  # an unsafe fix whose rule is ignored is not applied
            for call in match.calls:
                self.analysis.reasons.setdefault(
                    id(call), "its rewrite is the unsafe fix of %s, an ignored rule" % match.finding[0].code)
        if source is not None and source_name not in self.unbatched_sources:
            for match in [m for m in found.matches if m.unbatched_target is not None]:
                # A record-source helper's own read, left for its callers to link; read in place only
                # if none does (analyse runs again allowing it, as `unbatched_sources`).
                found.matches.remove(match)
                self.deferred_unbatched.add(source_name)
                for call in match.calls:
                    reasons.setdefault(id(call), "its record is returned to its callers")
        for match in [m for m in found.matches if synth.cannot_write(m.pipeline, self.target)]:
            found.matches.remove(match)  # it needs what the target lacks (slim's file listing in TF 2)
            for call in match.calls:
                self.analysis.reasons.setdefault(id(call), synth.cannot_write(match.pipeline, self.target))
        replacements: Dict[blocks.Path, List[cst.BaseStatement]] = {}
        removed: Set[blocks.Path] = set()
        sharded = self._function_name() in self.edits.shard_functions
        if sharded and self.edits.strategy != "shared-iterator":
            for match in [m for m in found.matches if isinstance(m.pipeline.source, ZipSource)]:
                # Each tower would read a shard of its own zip: every part's order would have to be
                # seeded alike in all towers, and the shuffle buffer split; not written.
                found.matches.remove(match)
                for call in match.calls:
                    self.analysis.reasons.setdefault(id(call), "its zipped chains feed several towers, each of "
                                                     "which would read a shard of the zip")
        for match in found.matches:
            if match.unbatched_target is not None:  # a record where the read was: no batch, no towers' shards
                self._apply_unbatched(match, leaves, replacements, removed)
                self.analysis.fixed_calls.update(id(call) for call in match.calls)
                self.analysis.pipelines += 1
                self.helper_uses.update(match.helpers_used)
                continue
            if sharded and self.edits.strategy == "shared-iterator":
                match.pipeline = dataclasses.replace(match.pipeline, shared_iterator_key=self._function_name(),
                                                     iterator_name=self.names.fresh("iterator"),
                                                     prefetch=towers.PREFETCH_PARAM)
            elif sharded:
                # The towers dequeued from one queue: one shuffle buffer, now split among the shards.
                match.pipeline = self._sharded(match.pipeline, Sharding(*towers.SHARD_PARAMS, split_buffer=True))
            elif match.tower_loop is not None:
                match.pipeline = self._sharded(match.pipeline, match.pipeline.sharding)
            self._apply(match, leaves, replacements, removed)
            for binding in match.remote_bindings:  # its reader or producer, bound in another method
                self.attr_bindings.setdefault(id(self.context.method_classes[id(binding.method)]), []).append(binding)
            self.analysis.record_attributes += match.object_names  # other modules must not name them
            if match.held_init is not None:  # the file names' dataset, where the producer was
                self._hold_init(*match.held_init)
            self.analysis.fixed_calls.update(id(call) for call in match.calls)
            if match.finding is not None:
                self.analysis.add_finding(match.finding[0], match.finding[1], True)
            self.analysis.pipelines += 1
            self.analysis.pipeline_functions[self._qualified_name()] += 1
            self.helper_uses.update(match.helpers_used if match.counted_helpers is None else match.counted_helpers)
        if found.matches:
            self._reword_messages(leaves, replacements, removed,
                                  any(m.pipeline.batching.shuffle_buffer for m in found.matches))
        self._apply_tower_edits(leaves, replacements, removed)
        if self.has_range_producers:
            self._rewrite_range_producers(leaves, replacements, removed)
        if not replacements and not removed:
            return updated_body
        return blocks.rebuild(updated_body, replacements, removed)

    def _exclusive_loads(self) -> Counter:
        """blocks.exclusive_loads of the root block being left, in its scope."""
        scope = self.scopes[-1]
        start = max(index for index, node in enumerate(self.parents) if node is scope)
        return blocks.exclusive_loads(self.parents[start:])

    @staticmethod
    def _reword_messages(leaves, replacements, removed, shuffles: bool) -> None:
        """Messages the block prints about its queue now name the stage that replaced it."""
        for leaf in leaves:
            if leaf.path in removed:
                continue
            for index, stmt in enumerate(replacements.get(leaf.path, [leaf.updated])):
                reworded = wording.reword_messages(stmt, shuffles)
                if reworded is not stmt and not reworded.deep_equals(stmt):
                    replacements.setdefault(leaf.path, [leaf.updated])[index] = reworded

    def _rewrite_range_producers(self, leaves, replacements, removed) -> None:
        """`i = range_input_producer(...).dequeue()` becomes an iterator over a range dataset."""
        scope = self.scopes[-1]
        loads = functools.lru_cache(maxsize=None)(lambda: Counter(cstutil.name_uses(scope).loads))
        found, failures = range_producers.find(
            leaves, self.imports, loads, self.names, self.module.code_for_node,
            lambda *args: synth.range_statements(*args, tf=self.tf, target=self.target))
        for call, reason in failures:
            self.analysis.reasons.setdefault(id(call), reason)
        config = self.module.config_for_parsing
        for rewrite in found:
            leaf = leaves[rewrite.dequeue_index]
            if id(rewrite.call) in self.analysis.suppressed_calls:
                self.analysis.reasons.setdefault(id(rewrite.call), "its line says `# qmigrate: ignore`")
                continue
            if leaf.path in replacements or leaf.path in removed:
                continue  # taken by another rewrite of this block
            statements = [cst.parse_statement(text, config) for text in rewrite.statements]
            # The producer's own comments (not those about its queue) stay above the dataset.
            above = [] if rewrite.producer_index is None else wording.moved_comments(
                leaves[rewrite.producer_index].updated)
            statements[0] = statements[0].with_changes(leading_lines=above + list(leaf.updated.leading_lines))
            replacements[leaf.path] = statements
            if rewrite.producer_index is not None:
                removed.add(leaves[rewrite.producer_index].path)
            self.analysis.fixed_calls.add(id(rewrite.call))
            self.analysis.pipelines += 1

    def _sharded(self, pipeline, sharding: Sharding):
        """The pipeline reading one shard; all shards see files in one order (a shared seed)."""
        source = pipeline.source
        if source.shuffle and source.seed is None and self.seed is not None:
            source = dataclasses.replace(source, seed=str(self.seed))
        elif source.shuffle and source.seed is None:
            source = dataclasses.replace(source, seed=FILE_ORDER_SEED)
            self.file_seed = True
        return dataclasses.replace(pipeline, source=source, sharding=sharding)

    def _apply_tower_edits(self, leaves, replacements, removed) -> None:
        for leaf in leaves:
            consumer = self.consumer_statements.get(id(leaf.original))
            if consumer is None:
                continue
            config = self.module.config_for_parsing
            comments = cstutil.comments_in(consumer.source_stmt)
            keywords = towers.tower_keywords(consumer, self.edits.strategy, self.iterator_holder, config)
            if leaf.original is consumer.dequeue_stmt:
                target = cstutil.single_assign(leaf.updated)[0]
                replacements[leaf.path] = [towers.tower_input(consumer, target, leaf.updated.leading_lines,
                                                              self.tf, config, comments, keywords)]
                self.analysis.fixed_calls.add(id(consumer.prefetch_call))
            elif leaf.original is consumer.use_stmt:
                target = cstutil.single_assign(consumer.source_stmt)[0]
                tower = towers.tower_input(consumer, target, leaf.updated.leading_lines, self.tf, config, comments,
                                           keywords)
                replacements[leaf.path] = [tower, leaf.updated.with_changes(leading_lines=[])]
            elif leaf.original is consumer.source_stmt and self.edits.strategy == "shared-iterator":
                # The towers' shared iterator lives in this dict, made where the input was built.
                holder = cst.parse_statement("%s = {}\n" % self.iterator_holder, config)
                replacements[leaf.path] = [holder.with_changes(leading_lines=[
                    line for line in leaf.updated.leading_lines if line.comment is None])]
            else:
                removed.add(leaf.path)

    def _helper_takes_record(self, statement, queue: str, helper: str, record: str):
        """`statement`, a reader helper's call given `queue`, given `record` instead (and calling
        the helper's migrated copy when the helper is kept for other callers)."""
        renames = {queue: record}
        if "." in helper and helper in self.context.kept_helpers:  # a kept method: its copy
            statement = method_copies.call_copy(statement, helper.rsplit(".", 1)[1], self.context.kept_helpers[helper])
        elif helper in self.context.kept_helpers:  # kept for other callers: call its migrated copy
            renames[helper] = self.context.kept_helpers[helper]
        return cstutil.rename(statement, renames)

    def _apply(self, match: Match, leaves, replacements, removed) -> None:
        pipeline = match.pipeline
        if match.returned_result is not None:
            self.analysis.returned_results.append(match.returned_result)
        self.analysis.captured_params += list(match.captured_params)
        self.analysis.drawn_params += [(function, name) for function, name, _ in match.captured_params
                                       if name in match.drawn_params]
        if self.wants(UnseenRecordFunction.code):
            for call, made in match.unseen_calls:
                self.analysis.add_finding(UnseenRecordFunction, call, False, "`%s()`, %s" % (
                    cst.Module([]).code_for_node(call.func), made))
        for call, summary, where in match.lost_summaries:  # (--unsafe: the pipeline is migrated all the same)
            self.analysis.add_finding(LostSummary, call, True, "`%s` (%s)" % (summary, where))
        chain = [leaves[i] for i in match.removed_indices]
        read = leaves[match.read_index]
        batch = leaves[match.batch_index]
        removed.update(leaf.path for leaf in chain)
        if match.producer_branches is not None:
            # The producer was made in if/elif arms: they stay, each naming its files for the dataset.
            branches = chain[0]
            removed.discard(branches.path)
            replacements[branches.path] = [match.producer_branches.with_changes(
                leading_lines=branches.updated.leading_lines)]
            chain = chain[1:]
        self._bind_producer_test(match, leaves, replacements, removed)
        # Comments on the queue plumbing describe the pipeline: they go above the new chain.
        # Those about queues go: the new chain says what it does.
        comments = []
        for leaf in chain:
            comments += wording.moved_comments(leaf.updated)
        if match.branch_batchings or match.branch_fallthrough:
            pass  # the if/else stays, with its comments
        elif match.batch_helper is None:
            comments += wording.moved_comments(batch.updated)
        else:  # the helper's call stays: only the comments above it move up
            comments += wording.moved_comments(batch.updated, leading_only=True)
        function = None
        # PEP 8: two blank lines around a def at the module's top level, one around an indented one
        # (in an `if` or `with` at module level too, where pycodestyle counts two as too many).
        around = 2 if self._module_body and not read.withs else 1
        if pipeline.record_function is not None:
            record_leaves = [dataclasses.replace(leaves[i], updated=wording.strip_statement(leaves[i].updated))
                             for i in match.record_indices]
            if match.record_statements:  # a hand-built queue's dequeue(): the records under their new names
                expanded, config = [], self.module.config_for_parsing
                for index, leaf in zip(match.record_indices, record_leaves):
                    texts = match.record_statements.get(index)
                    expanded += [leaf] if texts is None else [
                        dataclasses.replace(leaf, updated=cstutil.parse_stage(text + "\n", config)) for text in texts]
                record_leaves = expanded
            # The leaf that reads (a reader helper's or record source's call): the first per-record
            # one, after the random draws that move with them (record_draws).
            at = match.record_indices.index(match.read_index) if match.read_index in match.record_indices else 0
            if match.queue_name is not None:
                # The reader helper now takes the record where it took the queue.
                first = record_leaves[at].updated
                if match.one_of_repeated:  # `x = [read(q) for _ in range(n)]`: one read per record
                    small = first.body[0]
                    first = first.with_changes(body=[small.with_changes(value=small.value.elt)])
                record_leaves[at] = dataclasses.replace(record_leaves[at], updated=self._helper_takes_record(
                    first, match.queue_name, match.helpers_used[0], pipeline.record_function.params[-1]))
            elif match.helper_reads:  # a zip: each reader helper's call takes its chain's record
                for read_by in match.helper_reads:
                    at = match.record_indices.index(read_by.index)
                    record_leaves[at] = dataclasses.replace(record_leaves[at], updated=self._helper_takes_record(
                        record_leaves[at].updated, read_by.queue, read_by.helper, read_by.param))
            elif match.record_call is not None:
                # A record-source helper now takes the record (its producer and reader are the dataset's).
                first = record_leaves[at].updated
                small = first.body[0]
                record_leaves[at] = dataclasses.replace(record_leaves[at], updated=first.with_changes(
                    body=[small.with_changes(value=match.record_call)]))
            # The function is defined where the read was: `with`s around it already hold it.
            enclosing = {id(w) for w in read.withs}
            in_function = record_leaves + self._loop_records(leaves[match.batch_index], match)
            if match.arm_records is not None:  # the if/else's per-record code ends the function
                in_function = record_leaves + [dataclasses.replace(batch, updated=match.arm_records.statement)]
            body = blocks.regroup(in_function, lambda w: id(w) not in enclosing and self._scoping(w))
            function = map_locals.apply(self._record_function(pipeline.record_function, body), match.map_copies,
                                        self.names.fresh, self.module.config_for_parsing, match.drawn_params)
            blank = [line for line in chain[0].updated.leading_lines if line.comment is None] if chain else []
            if match.producer_branches is not None and not blank:
                blank = [cst.EmptyLine(indent=False)]  # after the if/elif that names the files
            if around == 2:
                blank = [cst.EmptyLine(indent=False)] * around
            if match.record_draws and not self.target.map_takes_graph_seed:
                binding, function = self._seeded(function)
                replacements[read.path] = [binding.with_changes(leading_lines=blank),
                                           function.with_changes(leading_lines=[cst.EmptyLine(indent=False)] * around)]
            else:
                replacements[read.path] = [function.with_changes(leading_lines=blank)]
            # (a record leaf written as no statement, such as a loop of only its append, goes too)
            removed.update(leaves[index].path for index in match.record_indices)
            for index, statement in match.kept_statements.items():  # stays in place, without what moved
                replacements[leaves[index].path] = [statement.with_changes(
                    leading_lines=leaves[index].updated.leading_lines)]
            kept = {leaves[index].path for index in match.kept_statements}
            # Statements that stay between the function and the new chain start after a blank line.
            following = next((leaf for leaf in leaves[match.read_index + 1:]
                              if leaf.path not in removed or leaf.path in kept), None)
            if (following is not None and following is not batch
                    and (following.path not in replacements or following.path in kept)
                    and len(following.updated.leading_lines) < around and following.withs == read.withs):
                stays = replacements[following.path][0] if following.path in kept else following.updated
                replacements[following.path] = [stays.with_changes(
                    leading_lines=[cst.EmptyLine(indent=False)] * around)]

        tf, config = self.tf, self.module.config_for_parsing
        bindings, guarded, pipeline = self._source_bindings(pipeline)
        if match.branch_batchings or match.branch_fallthrough:  # the arms' tails go into the `if` below
            texts = bindings + synth.head_statements(pipeline, tf, self.target)
        else:
            pipeline = dataclasses.replace(pipeline, rows_repeat=synth.rows_repeatable(pipeline))
            texts = bindings + synth.dataset_statements(pipeline, tf, self.target)
        statements = [cstutil.parse_stage(text, config) for text in texts]
        leading = [line for line in batch.updated.leading_lines if line.comment is None]
        if function is not None and len(leading) < around:
            leading = [cst.EmptyLine(indent=False)] * around  # blank lines after the function
        statements[0] = statements[0].with_changes(leading_lines=leading + comments)
        returned = self._returned_as_dataset(leaves, match)
        if match.branch_batchings or match.branch_fallthrough:
            replacements[batch.path] = statements + [self._in_branches(batch.updated, match, batch.original)]
        elif match.tower_loop is not None:
            replacements[batch.path] = [self._in_tower_loop(batch.updated, match, statements)]
        elif returned is not None:
            return_leaf, expression = returned
            replacements[batch.path] = statements
            replacements[return_leaf.path] = [return_leaf.updated.with_changes(body=[
                return_leaf.updated.body[0].with_changes(value=cst.parse_expression(expression))])]
        elif match.batch_helper is None:
            statements.append(self._consume(batch.updated, match))
            replacements[batch.path] = statements
        else:
            statements += self._feed_helper(batch.updated, match)
            replacements[batch.path] = statements

    def _bind_producer_test(self, match: Match, leaves, replacements, removed) -> None:
        """The producer's `shuffle=` test stays where the producer made it, bound to the name the
        dataset tests (recognise._bind_test); the producer's comments move with the chain's."""
        if match.test_binding is None:
            return
        index, text = match.test_binding
        producer = leaves[index]
        removed.discard(producer.path)
        binding = cst.parse_statement(text + "\n", self.module.config_for_parsing)
        replacements[producer.path] = [binding.with_changes(
            leading_lines=[line for line in producer.updated.leading_lines if line.comment is None])]

    def _apply_unbatched(self, match: Match, leaves, replacements, removed) -> None:
        """The producer and reader go; the read becomes the dataset and its get_next(). The
        comments above the producer and reader go above the dataset, the read's stay with it."""
        chain = [leaves[i] for i in match.removed_indices]
        read = leaves[match.read_index]
        removed.update(leaf.path for leaf in chain)
        self._bind_producer_test(match, leaves, replacements, removed)
        comments = []
        for leaf in chain:
            comments += wording.moved_comments(leaf.updated)
        pipeline = dataclasses.replace(match.pipeline, dataset_name=self.names.fresh("dataset"))
        bindings, guarded, pipeline = self._source_bindings(pipeline)
        texts = bindings + synth.unbatched_statements(pipeline, self.tf, self.target, match.unbatched_target)
        # A slim provider's get() becomes the decoding of the record get_next() gives.
        texts = texts + list(match.record_statements.get(match.read_index, ()))
        statements = [cstutil.parse_stage(text, self.module.config_for_parsing) for text in texts]
        if match.queue_name is not None:  # the reader helper's call stays, given the record for the queue
            statements.append(self._helper_takes_record(read.updated.with_changes(leading_lines=[]), match.queue_name,
                                                        match.helpers_used[0], match.unbatched_target))
        own = wording.moved_comments(read.updated)
        first = chain[0] if chain else read  # a slim read is its own producer: nothing before it goes
        blank = [line for line in first.updated.leading_lines if line.comment is None]
        if guarded and not blank:  # a function first (file_guard.py): a blank line before it
            blank = [cst.EmptyLine(indent=False)]
        statements[0] = statements[0].with_changes(leading_lines=blank + comments + own)
        replacements[read.path] = statements

    def _returned_as_dataset(self, leaves, match: Match):
        """(return leaf, new return value) when an Estimator input_fn returns the batch it built.

        Estimators take a Dataset from input_fn: `images, labels = batch(...)` followed by
        `return {'x': images}, labels` becomes `return dataset.map(lambda images, labels: ...)`.
        """
        scope = self.scopes[-1]
        if not (isinstance(scope, cst.FunctionDef) and scope.name.value in self.context.input_fns):
            return None
        if match.batch_helper is not None or match.batch_index + 1 >= len(leaves):
            return None
        # Only where its callers are proven core Estimators (estimator_inputs): tf.contrib.learn's,
        # and code calling the input_fn itself, unpack tensors from it.
        outer = self.scopes[1:]
        if any(not isinstance(node, cst.FunctionDef) for node in outer):
            return None
        top = outer[0].name.value
        if top in self.context.kept_input_fns:
            return None
        names = (top, scope.name.value)
        if names not in self._core_consumed:
            self._core_consumed[names] = estimator_inputs.core_consumed(self.module, self.imports, names)
        if not self._core_consumed[names]:
            return None
        assign = cstutil.single_assign(leaves[match.batch_index].original)
        small = cstutil.single_small(leaves[match.batch_index + 1].original)
        if assign is None or not isinstance(small, cst.Return) or small.value is None:
            return None
        targets = towers.target_names(assign[0])
        local = cstutil.name_uses(scope).stores - set(targets)
        if not targets or set(cstutil.name_uses(small.value).loads) & local:
            return None
        dataset = match.pipeline.dataset_name
        expression = self.module.code_for_node(small.value)
        if isinstance(small.value, cst.Tuple) and not small.value.lpar:
            expression = "(%s)" % expression  # `lambda a, b: x, y` would be a tuple holding a lambda
        self.analysis.dataset_input_fns.append(top)  # for the run: no other module may name it
        if expression.replace(" ", "").strip("()") in (",".join(targets), targets[0]):
            return leaves[match.batch_index + 1], dataset
        return leaves[match.batch_index + 1], "%s.map(lambda %s: %s)" % (dataset, ", ".join(targets), expression)

    def _in_branches(self, branch: cst.If, match: Match, original: cst.If) -> cst.If:
        """The if/elif/else, each arm batching the one dataset its own way and taking its next
        element (its per-record statements, match.arm_records, went into the map function); with
        no `else` (match.branch_fallthrough), one is added taking the records one at a time."""
        config = self.module.config_for_parsing
        arms = []
        moved = match.arm_records.moved if match.arm_records is not None else frozenset()
        blocks_now, before_blocks = if_chain(branch)[0], if_chain(original)[0]
        batchings = (match.pipeline.batching,) + tuple(match.branch_batchings)
        records_arm = match.records_arm
        batching_arm = 1 if records_arm == 0 else 0  # an arm whose last statement is a batching
        if records_arm is not None:  # the arm that batches nothing is taken out, put back below
            records_block = blocks_now[records_arm]
            blocks_now = blocks_now[:records_arm] + blocks_now[records_arm + 1:]
            before_blocks = before_blocks[:records_arm] + before_blocks[records_arm + 1:]
        for position, (block, batching, before) in enumerate(zip(blocks_now, batchings, before_blocks)):
            body = [stmt for stmt, was in zip(block.body, before.body) if id(was) not in moved]
            if body and body[0] is not block.body[0]:  # what opened the arm moved: no blank line opens it now
                body[0] = body[0].with_changes(leading_lines=[line for line in body[0].leading_lines
                                                              if line.comment is not None])
            # Statements after the batching (`a, b = x[:2]`, Match.batch_later; `return x, y`,
            # Match.arm_later) stay after its get_next().
            count = match.arm_later[position] if match.arm_later else match.batch_later
            later = body[len(body) - count:] if count else []
            block = block.with_changes(body=body[:len(body) - len(later)])
            pipeline = dataclasses.replace(match.pipeline, batching=batching)
            tail = [cst.parse_statement(text, config) for text in synth.tail_statements(pipeline, self.tf, self.target)]
            # Statements before the batching (`capacity = ...`) stay ahead of the arm's tail.
            consume = self._consume(block.body[-1], dataclasses.replace(match, pipeline=pipeline))
            tail[0] = tail[0].with_changes(leading_lines=block.body[-1].leading_lines)
            arms.append(block.with_changes(body=list(block.body[:-1]) + tail + [consume] + later))
        last = None
        if match.branch_fallthrough:
            # The path that batched nothing read one record per run, under the names the arms batch.
            batched = if_chain(branch)[0][batching_arm].body[-1 - match.batch_later]
            if match.records_batching is None:
                records = [cst.parse_statement(synth.repeat_statement(match.pipeline) + "\n", config)]
                if getattr(match.pipeline.source, "held", False):  # its epochs are the held dataset's already
                    records = []
            else:  # as the hand-built queues gave them: their shuffle, their runners ahead of the reads
                pipeline = dataclasses.replace(match.pipeline, batching=match.records_batching)
                records = [cst.parse_statement(text, config)
                           for text in synth.tail_statements(pipeline, self.tf, self.target)]
            if match.records_names:  # the names that arm reads, which the map function returned there
                records.append(cst.parse_statement(self._records_taken(match), config))
            else:
                records.append(self._consume(batched, match).with_changes(leading_lines=[]))
            # the batched names, bound from the element kept whole as the batching arm keeps it
            records.extend(cst.parse_statement(text + "\n", config) for text in match.records_unpacking)
            if records_arm is None:
                last = cst.Else(body=blocks_now[0].with_changes(body=records))
            else:  # its own statements follow, on the record's tensors as before
                records[0] = records[0].with_changes(leading_lines=records_block.body[0].leading_lines)
                body = records + [records_block.body[0].with_changes(leading_lines=[])] + list(records_block.body[1:])
                arms.insert(records_arm, records_block.with_changes(body=body))
        return _with_arms(branch, arms, last)

    def _records_taken(self, match: Match) -> str:
        """The statement binding the names the arm without batching reads (match.records_names) to
        the next element: under the test that bound some of them, only where it did."""
        element = synth.next_element(match.pipeline, self.tf, self.target)
        whole = "%s = %s\n" % (", ".join(match.records_names), element)
        if match.records_condition is None:
            return whole
        test, when_true, partial = match.records_condition
        fewer = "%s = %s\n" % (", ".join(name for name in match.records_names if name not in partial), element)
        first, second = (whole, fewer) if when_true else (fewer, whole)
        indent = self.module.config_for_parsing.default_indent
        return "if %s:\n%s%selse:\n%s%s" % (test, indent, first, indent, second)

    def _loop_records(self, loop: blocks.Leaf, match: Match) -> List[blocks.Leaf]:
        """The per-record statements inside a tower loop (match.tower_loop.record_paths), for the
        map function: outside their `with`s, which stay with the loop's batching."""
        if match.tower_loop is None or not match.tower_loop.record_paths:
            return []
        inner = {leaf.path: leaf for leaf in blocks.flatten(loop.original.body.body, loop.updated.body.body)}
        return [dataclasses.replace(inner[path], updated=wording.strip_statement(inner[path].updated), withs=())
                for path in match.tower_loop.record_paths]

    def _in_tower_loop(self, loop: cst.For, match: Match, statements) -> cst.For:
        """The tower loop with its batching replaced by this tower's shard of the dataset (on the
        CPU when the loop places devices), its per-record statements gone to the map function."""
        path = match.tower_loop.inner_path
        inner = next(leaf for leaf in blocks.flatten(loop.body.body, loop.body.body) if leaf.path == path)
        comments = [line for line in statements[0].leading_lines if line.comment is not None]
        statements = [statements[0].with_changes(leading_lines=[])] + statements[1:]
        if match.batch_helper is None:
            statements.append(self._consume(inner.updated, match))
        else:
            statements += self._feed_helper(inner.updated, match)
        leading = list(inner.updated.leading_lines) + comments
        if match.tower_loop.on_devices:
            replacement = [towers.on_cpu(statements, self.tf, self.module.config_for_parsing, leading)]
        else:
            replacement = [statements[0].with_changes(leading_lines=leading)] + statements[1:]
        body = blocks.rebuild(loop.body.body, {path: replacement}, set(match.tower_loop.record_paths))
        if match.tower_loop.record_paths and body:  # a blank line that followed moved code does not open the body
            lines = list(body[0].leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body[0] = body[0].with_changes(leading_lines=lines)
        return loop.with_changes(body=loop.body.with_changes(body=body))

    def _feed_helper(self, batch_stmt: cst.BaseStatement, match: Match) -> List[cst.BaseStatement]:
        """`a, b = <next element>` and the batching helper's call, given the batch instead of tensors."""
        use = match.batch_helper
        element = synth.next_element(match.pipeline, self.tf, self.target)
        # One tensor batched is one tensor back (TF 1.8's dequeue_many gives no list of one), and
        # the dataset's element is that tensor: no unpacking.
        targets = ", ".join(use.targets)
        assign = cst.parse_statement("%s = %s\n" % (targets, element), self.module.config_for_parsing)
        call = cstutil.statement_value(batch_stmt)
        params = [p.name.value for p in use.helper.function.params.params]
        new_args = []
        for position, arg in enumerate(call.args):
            param = arg.keyword.value if arg.keyword is not None else params[position]
            if param in use.helper.tensor_params:
                name = use.targets[use.helper.tensor_params.index(param)]
                value = built_rows.list_argument(name) if param in use.helper.listed else name
                arg = arg.with_changes(value=cst.parse_expression(value))
            new_args.append(arg)
        new_call = call.with_changes(args=new_args)
        copy = self.context.kept_helpers.get(use.helper.function.name.value)
        if copy is not None:  # kept for other callers: call its migrated copy
            new_call = new_call.with_changes(func=cst.Name(copy))
        replaced = cstutil.replace_node(batch_stmt, call, new_call)
        return [assign, replaced.with_changes(leading_lines=[])]

    def _scoping(self, with_node: cst.With) -> bool:
        """Whether a `with` around per-record code goes into the map function with it.

        Name and variable scopes do; device scopes do not: dataset functions run where the
        iterator runs, and a `/gpu:N` inside them would need soft placement.
        """
        for item in with_node.items:
            call = item.item
            if isinstance(call, cst.Call) and self.imports.resolve(call.func) == "tensorflow.device":
                return False
        return True

    def _source_bindings(self, pipeline: Pipeline) -> Tuple[List[str], bool, Pipeline]:
        """(the statements written before the dataset's: the producer's computed arguments bound
        once, then file_guard's function; whether that function is among them, the pipeline
        using them)."""
        bindings, pipeline = bound_sources.bind(pipeline, self.names.fresh, self.tf, self.target)
        guarded, pipeline = file_guard.guard(pipeline, self.names.fresh, self.tf)
        return bindings + guarded, bool(guarded), pipeline

    def _seeded(self, function: cst.FunctionDef) -> Tuple[cst.BaseStatement, cst.FunctionDef]:
        """(a statement binding the program's graph seed, the map function giving it to its own
        graph first). Before TF 1.15 a map function's graph has no seed: its random ops drew anew
        in every run of a program that set one (`tf.set_random_seed`), and an op seed gave other
        numbers than in the program's graph (measured on 1.8). With the seed, both draw as they did
        in the queue's per-record code. Without one (None) the statement changes nothing."""
        config, name = self.module.config_for_parsing, self.names.fresh("graph_seed")
        binding = cst.parse_statement("%s = %s.get_default_graph().seed\n" % (name, self.tf), config)
        given = cst.parse_statement("%s.set_random_seed(%s)  # the program's (TF < 1.15 gives this graph none)\n"
                                    % (self.tf, name), config)
        body = function.body.with_changes(body=[given] + list(function.body.body))
        return binding, function.with_changes(body=body)

    def _record_function(self, function, statements) -> cst.FunctionDef:
        config = self.module.config_for_parsing
        # `tf.parallel_stack` runs only in the program's graph (graph_state.GRAPH_ONLY): in the map
        # function it is `tf.stack`, which gives the same tensor.
        statements = [stmt.visit(_GraphOnlyRenamer(self.imports)) for stmt in statements]
        # A name the function binds (or takes) is checked and bound again; any other (an outer
        # tensor it returns) would become a local unbound where the check reads it: only set.
        bound = {param.lstrip("*") for param in function.params}
        for stmt in statements:
            bound |= set(cstutil.name_uses(stmt).stores)
        shapes = "".join("    %s\n" % line for name, shape in function.static_shapes
                         for line in (synth.shape_checks(name, shape, self.tf, self.target) if name in bound
                                      else ["%s.set_shape(%s)" % (name, shape)]))
        returns = function.returns
        if function.keep_input is not None:
            keep = function.keep_input if function.keep_is_tensor else "%s.convert_to_tensor(%s, %s.bool)" % (
                self.tf, function.keep_input, self.tf)
            returns = "%s, %s" % (returns, keep)
        template = cst.parse_statement("def %s(%s):\n%s    return %s\n" % (
            function.name, ", ".join(function.params), shapes, returns), config)
        if statements:
            # A blank line that separated the first record statement now separates the function.
            first = statements[0]
            kept = [line for line in first.leading_lines if line.comment is not None]
            statements = [first.with_changes(leading_lines=kept)] + list(statements[1:])
        last = list(template.body.body)
        if statements and branch_records.always_returns(statements[-1]):
            last = last[:-1]  # the if/else the function ends with returns in every arm
        body = template.body.with_changes(body=list(statements) + last)
        return template.with_changes(body=body)

    def _consume(self, batch_stmt: cst.SimpleStatementLine, match: Match) -> cst.BaseStatement:
        """The batching statement, its call replaced by the iterator's next element."""
        element = synth.next_element(match.pipeline, self.tf, self.target)
        small = batch_stmt.body[0]
        unpacked = isinstance(small, cst.Assign) and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
        if match.element_kind == "tuple" and not unpacked:
            element = "list(%s)" % element  # tf.train.batch returned a list (returned or kept whole)
        if match.element_kind.startswith("bucket"):
            element = bucketing.consumed(element, match.element_kind,
                                         small.targets[0].target if isinstance(small, cst.Assign) else None)
        new_value = cst.parse_expression(element, self.module.config_for_parsing)
        return cst.SimpleStatementLine([small.with_changes(value=new_value)])


def _with_arms(branch: cst.If, arms: List[cst.BaseSuite], last: Optional[cst.Else]) -> cst.If:
    """`branch` (an if/elif/else chain) with its arms' blocks replaced, in order; `last` added as
    the `else` of a chain that had none."""
    if isinstance(branch.orelse, cst.If):
        orelse = _with_arms(branch.orelse, arms[1:], last)
    elif isinstance(branch.orelse, cst.Else):
        orelse = branch.orelse.with_changes(body=arms[1])
    else:
        orelse = last
    return branch.with_changes(body=arms[0], orelse=orelse)


FILE_ORDER_SEED = "_FILE_ORDER_SEED"


def _add_file_order_seed(module: cst.Module) -> cst.Module:
    """A module constant drawn once per process: every shard's file shuffle uses it."""
    body = list(module.body)
    position = _after_imports(body)
    lines = [
        "import random\n",
        "# One seed for the whole process, so that every shard shuffles the files the same way.\n"
        "%s = random.randint(0, 2 ** 31 - 1)\n" % FILE_ORDER_SEED,
    ]
    config = module.config_for_parsing
    statements = [cst.parse_statement(text, config) for text in lines]
    statements[1] = statements[1].with_changes(leading_lines=[cst.EmptyLine(indent=False)] + list(
        statements[1].leading_lines))
    if "random" in ImportMap(module).aliases:
        statements = statements[1:]
    body[position:position] = statements
    return module.with_changes(body=body)


def _after_imports(body) -> int:
    """The index after the module's last top-level import line (a line of imports only, several
    `;`-separated included), and never before its docstring."""
    position = 1 if body and cstutil.is_docstring(body[0]) else 0
    for index, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and stmt.body and all(
                isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body):
            position = index + 1
    return position


def _ensure_tf_import(module: cst.Module, imports: ImportMap, tf: str) -> cst.Module:
    """Add `import tensorflow as tf` when the file reached TensorFlow only through other names."""
    if imports.local_name_for("tensorflow"):
        return module
    body = list(module.body)
    statement = "import tensorflow\n" if tf == "tensorflow" else "import tensorflow as %s\n" % tf
    body.insert(_after_imports(body), cst.parse_statement(statement))
    return module.with_changes(body=body)
