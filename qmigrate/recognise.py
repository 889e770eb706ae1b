"""Recognise queue pipelines in one block of statements and link them into pipeline models.

A pipeline here is the chain, in one block, of
`q = <producer>(files)` → `r = <Reader>()` → `key, value = r.read(q)` → per-record statements →
`x = <batching>([tensors], ...)` (or `return <batching>(...)`). Whatever breaks the chain or
cannot be proven safe becomes a Failure that names the reason; nothing is guessed.
"""
import ast
import builtins
import dataclasses
import os
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from qmigrate import (batch_down, batched_lists, blocks, branch_records, bucketing, built_rows, captured_params,
                      class_attrs, cstutil, decorated_calls, dequeued_rows, factories, fresh_receivers, graph_state,
                      group_reads, handbuilt, held_sources, helpers, joins, loop_records, lookup_tables, map_locals,
                      provider_factories, queue_sources, reader_makers, receivers, record_draws, returned_records,
                      slim_modules, slim_provider, towers, zipped_arms, zipped_chains)
from qmigrate.model import Batching, Pipeline, RecordFunction, Sharding
from qmigrate.cstutil import if_chain  # (also this module's, for its callers)
from qmigrate.names import ImportMap, dotted
from qmigrate.rules import (
    BATCHERS, BUCKETERS, FILTERERS, JOINERS, PRODUCERS, READERS, SLICERS, SLIM_PROVIDERS, SLIM_READS, HandBuiltQueue,
    PrefetchQueue, PythonFedQueue, rule_for)
from qmigrate.rules.base import ProducerTest, Unsupported, condition_base
from qmigrate.rules.findings import LostSummary
from qmigrate.rules.producers import DEFAULTS as PRODUCER_DEFAULTS, MATCH_FILENAMES_ONCE, RangeInputProducer
from qmigrate.rules.slim_provider import ReaderModel, UnseenSlimDataset


@dataclass
class Match:
    """A recognised pipeline: which leaves of the block it uses, and what it means.

    Indices are into the block's leaves. `read_index` is where the record function is defined;
    with a reader helper that leaf is also the first per-record statement (its queue argument
    becomes the record). With a batching helper, `batch_helper` says how the helper call at
    `batch_index` is kept, fed with the batch.
    """

    removed_indices: Tuple[int, ...]  # producer, reader and read statements that disappear
    read_index: int
    record_indices: Tuple[int, ...]
    batch_index: int
    pipeline: Pipeline
    element_kind: str  # "single" | "tuple" | "dict" | "bucket" | "bucket_list": what get_next() must give back
    calls: Tuple[cst.Call, ...]  # the producer, reader and batching calls this rewrite removes
    queue_name: Optional[str] = None  # with a reader helper: the queue argument to replace
    # A zip of chains some of which are read by reader helpers (zipped_chains.HelperRead): each
    # call's queue argument to replace (queue_name is then None).
    helper_reads: Tuple = ()
    batch_helper: Optional["HelperBatch"] = None
    helpers_used: Tuple[str, ...] = ()
    tower_loop: Optional["TowerLoopBatch"] = None  # the batching sits in a tower loop at batch_index
    one_of_repeated: bool = False  # the read leaf is `x = [read(q) for _ in range(n)]`: keep one call
    # Record leaves written anew (a hand-built queue's `dequeue()`): leaf index -> statements' source.
    record_statements: Dict[int, Tuple[str, ...]] = field(default_factory=dict)
    # The leaf at batch_index is `if c: <batch> else: <batch>`: the else arm's batching (the if
    # arm's is the pipeline's). One dataset is built before the `if`; each arm gets its own tail.
    branch_batchings: Tuple = ()
    record_call: Optional[cst.Call] = None  # with a record-source helper: its call, given the record
    producer_branches: Optional[cst.If] = None  # producer made in if/elif arms: the arms, naming the files
    # (the producer's leaf, the statement it becomes): its `shuffle=` test, bound where it was made.
    test_binding: Optional[Tuple[int, str]] = None
    finding: Optional[Tuple[type, cst.CSTNode]] = None  # an unsafe fix's finding, reported as applied
    # Readers or producers bound to `self.<attr>` in another method, their calls moved into this
    # chain: each binding goes once nothing reads the attribute (class_attrs.Binding).
    remote_bindings: Tuple = ()
    # A held record source's queue binding in __init__ and the producer there as a FileSource in
    # __init__'s names: the engine writes the file names' dataset in its place (held_sources.py).
    held_init: Optional[Tuple] = None
    # With a reader or queue the object made in another method (remote_bindings, held_init): the
    # method that batches their records (two calls of it on one object shared them, where its
    # datasets would each read them all) and the attributes that held them (removed, or now a
    # dataset). Other modules of the run must not name them (the run checks, as for
    # FileAnalysis.record_attributes).
    object_names: Tuple[str, ...] = ()
    # An unbatched read (no batching in the block): the source of what get_next() is assigned to
    # where the read stood; batch_index is then read_index, and nothing else moves.
    unbatched_target: Optional[str] = None
    # (leaf index, name) of a whole-file reader this read shares with other unbatched reads: the
    # reader goes only if every use of it is such a read.
    shared_reader: Optional[Tuple[int, str]] = None
    # The helper uses this match accounts for, when not helpers_used (a helper chosen at run time:
    # each arm's binding, counted with the variable's first call).
    counted_helpers: Optional[Tuple[str, ...]] = None
    # Record leaves that also stay in place, as given (`if shuffle:` around a queue helper's call,
    # kept without the call): leaf index -> the statement.
    kept_statements: Dict[int, cst.BaseStatement] = field(default_factory=dict)
    # With branch_batchings: the arms' per-record code, which the map function ends with.
    arm_records: Optional[branch_records.ArmRecords] = None
    # With branch_batchings: the `if`/`elif` has no `else`; that path takes the records one at a
    # time (its targets are the batched names: they get the map function's elements as they are).
    branch_fallthrough: bool = False
    # With branch_fallthrough: the position of the arm that batches nothing (its simple statements
    # stay, after that path's records are bound); None: the `if`/`elif` has no `else`.
    records_arm: Optional[int] = None
    # With branch_fallthrough and hand-built queues between the read and the if: that path's
    # records as the queues gave them (their shuffle; `single`: no batch stage).
    records_batching: Optional[Batching] = None
    # With records_arm: the number of statements after the batching in the arm that batches
    # (`x = batch([a, b] + c)`, then `a, b = x[:2]`...), kept after its get_next(); and the statements
    # binding the batched names from `x` on the path that batches nothing (batched_lists.unpacking).
    batch_later: int = 0
    records_unpacking: Tuple[str, ...] = ()
    # Or, with records_arm, the per-record names that arm reads: it takes them from the dataset,
    # whose map function returns them there (and the batched tensors in the batching arm).
    records_names: Tuple[str, ...] = ()
    # With records_names: some of them are bound by the per-record code only under a test (`if
    # stereo: right = ...`): (the test's source, whether its truth binds them, the names bound
    # only then). The map function returns them only where the test says they are bound, and the
    # arm takes them only there too, testing again (partial_records).
    records_condition: Optional[Tuple[str, bool, Tuple[str, ...]]] = None
    # With every arm batching: how many statements follow each arm's batching (`return x, y`),
    # kept after its get_next() (() when none does).
    arm_later: Tuple[int, ...] = ()
    # The function also returns the per-record element, which every caller discards:
    # (function, position in the returned tuple, its length) (returned_records).
    returned_result: Optional[Tuple[str, int, int]] = None
    # Leaves outside the chain that take a queue's or iterator's next element (`b = q.dequeue()`,
    # `_, b = r.read(q)`) and whose result the per-record code reads: another chain's records,
    # allowed only when this match zips that chain too (_drop_captures).
    captured_reads: Tuple[int, ...] = ()
    # Names the map function rebinds that are also bound outside it before the batch: the function
    # starts from a copy of the outer value, under a name of its own (map_locals).
    map_copies: Tuple[str, ...] = ()
    # (function, parameter, position) the map function captures: the run checks what the calls of
    # the other modules pass for them (captured_params).
    captured_params: Tuple = ()
    # Per-record calls of functions made at run time, now in the map function: (call, how it is made).
    unseen_calls: Tuple = ()
    # The per-record code may call a random op (recognise._may_draw): the map function takes the
    # program's graph seed where its graph would not (engine._seeded).
    record_draws: bool = False
    # With --unsafe, per-record calls that make summaries (themselves, or in what they call), now
    # made in the map function's graph: (call, what makes the summary, where).
    lost_summaries: Tuple = ()
    # Parameters of the function the map function calls first when they are functions (callers
    # in other modules pass functions that draw for each record: drawn_arguments).
    drawn_params: Tuple[str, ...] = ()


@dataclass(frozen=True)
class TowerLoopBatch:
    """Each tower of the loop batches the records of one shared reader: one shard per tower."""

    inner_path: Tuple[int, ...]  # the batching statement's path inside the loop body
    loop_var: str
    num_towers: str
    # Per-record statements inside the loop, before the batching (paths inside the loop body):
    # each iteration preprocesses the records it batches; they move into the map function.
    record_paths: Tuple[Tuple[int, ...], ...] = ()
    on_devices: bool = True  # the loop puts each iteration on a device: the dataset goes on the CPU


@dataclass(frozen=True)
class HelperBatch:
    """A call of a batching helper, kept, its tensor arguments replaced by the batch."""

    helper: helpers.BatchHelper
    targets: Tuple[str, ...]  # names the caller gives the batch


@dataclass
class Failure:
    """Calls that form (part of) a pipeline which is left as it is, and why."""

    calls: Tuple[cst.Call, ...]
    reason: str
    finding: Optional[Tuple[type, cst.CSTNode]] = None  # a finding to report beside the reason


@dataclass
class BlockResult:
    matches: List[Match] = field(default_factory=list)
    failures: List[Failure] = field(default_factory=list)


class NamePool:
    """Fresh names for generated functions and variables, never clashing with the module's."""

    def __init__(self, used: Set[str]):
        self.used = set(used)

    def fresh(self, preferred: str) -> str:
        name, n = preferred, 2
        while name in self.used:
            name, n = "%s_%d" % (preferred, n), n + 1
        self.used.add(name)
        return name


_QUEUES = (HandBuiltQueue, PrefetchQueue, PythonFedQueue)  # queues that may take records again
# Why a chain of an inner block (an `if` arm) stops when nothing in it batches: a chain of the
# enclosing block that takes these records in has the better reason, and it wins (engine.py).
UNBATCHED_IN_BLOCK = "its records are not batched by tf.train.batch/shuffle_batch in the same block"
_BUILTIN_NAMES = frozenset(dir(builtins))
# What `shapes=` may set the shape of in the map function: a name, or an item of one (`rows[2]`).
_SHAPED = re.compile(r"[A-Za-z_]\w*(\[\d+\])?$")
_CHECKED_SHAPES = ("its records are dequeued one at a time and no batching follows, and `%s` sets `shapes=`: the "
                   "queue checks each record against those shapes when it is enqueued, which a dataset would not "
                   "(set_shape in the map is a static promise, not a check)")


def _call_with_rule(expr: Optional[cst.BaseExpression], imports: ImportMap, family) -> Optional[Tuple[type, cst.Call]]:
    if isinstance(expr, cst.Call):
        rule = rule_for(imports.resolve(expr.func))
        if rule in family:
            return rule, expr
    return None


class _CallFinder(cst.CSTVisitor):
    def __init__(self, imports: ImportMap, family):
        self.imports, self.family, self.found, self.calls = imports, family, False, []

    def visit_Call(self, node: cst.Call) -> None:
        if rule_for(self.imports.resolve(node.func)) in self.family:
            self.found = True
            self.calls.append(node)


def _read_call(value: cst.BaseExpression):
    """(reader, queue variable, None) for `reader.read(queue)`, where the reader is a variable's
    name or the reader's constructor call itself (`tf.TFRecordReader().read(queue)`); for
    `reader.read_up_to(queue, n)` the last is n. A `name=` argument only names the read op, which
    goes with the reader."""
    value = helpers.plain_read_call(value)
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and (isinstance(value.func.value, (cst.Name, cst.Call)) or _on_object(value.func.value))):
        return None
    if not (value.args and value.args[0].keyword is None
            and (isinstance(value.args[0].value, cst.Name) or _on_object(value.args[0].value))):
        return None
    method, args = value.func.attr.value, value.args
    reader = value.func.value.value if isinstance(value.func.value, cst.Name) else value.func.value
    queue = dotted(args[0].value)
    if method == "read" and len(args) == 1:
        return reader, queue, None
    if (method == "read_up_to" and len(args) == 2 and not args[1].star
            and (args[1].keyword is None or args[1].keyword.value == "num_records")):
        return reader, queue, args[1].value
    return None


def _on_object(node) -> bool:
    """`obj.attr`: an attribute of a plain name (a reader or queue kept on `self`)."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)


def _on_chain(node) -> bool:
    """`obj.prop.attr` (any depth): an attribute of attributes of a plain name."""
    if not isinstance(node, cst.Attribute):
        return False
    node = node.value
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _repeated_call(value) -> Optional[Tuple[cst.Call, cst.BaseExpression]]:
    """(call, n) for `[call for _ in range(n)]` whose call does not use the loop variable."""
    if not (isinstance(value, cst.ListComp) and isinstance(value.elt, cst.Call)):
        return None
    loop = value.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous or not isinstance(loop.target, cst.Name):
        return None
    it = loop.iter
    if not (isinstance(it, cst.Call) and dotted(it.func) in ("range", "xrange") and len(it.args) == 1):
        return None
    if loop.target.value in cstutil.name_uses(value.elt).loads:
        return None
    return value.elt, it.args[0].value


def _param_names(function: cst.FunctionDef) -> Set[str]:
    params = function.params
    named = list(params.posonly_params) + list(params.params) + list(params.kwonly_params) + [
        p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return {p.name.value for p in named}


def _target_name(target: cst.BaseExpression) -> Optional[str]:
    return target.value if isinstance(target, cst.Name) else None


@dataclass
class ModuleContext:
    """What recognition needs to know about the module beyond the block."""

    imports: ImportMap
    module_names: Set[str]
    input_fns: Set[str] = field(default_factory=set)  # functions an Estimator calls
    # Top-level functions holding an input_fn that other modules name: it keeps returning tensors
    # (estimator_inputs) -> who names it.
    kept_input_fns: Dict[str, str] = field(default_factory=dict)
    reader_helpers: Dict[str, helpers.ReaderHelper] = field(default_factory=dict)
    batch_helpers: Dict[str, helpers.BatchHelper] = field(default_factory=dict)
    queue_sources: Dict[str, "queue_sources.QueueSource"] = field(default_factory=dict)
    refused_helpers: Dict[str, str] = field(default_factory=dict)  # batching helpers of other modules: why not
    record_sources: Dict[str, helpers.RecordSource] = field(default_factory=dict)
    # Helpers kept as they are for callers the migration does not rewrite: old name -> the name of
    # the migrated copy the pipelines call instead.
    kept_helpers: Dict[str, str] = field(default_factory=dict)
    # The module may build sparse tensors (VarLenFeature, string_split, ...), which expand_dims
    # cannot take: its batches of one stay batch(1).
    may_be_sparse: bool = True
    functions: Dict[str, cst.FunctionDef] = field(default_factory=dict)  # the module's top-level functions
    # The line a statement of the module starts on, for reasons that name a line (None: unknown).
    line_of: Optional[Callable[[cst.CSTNode], int]] = None
    unsafe: bool = False  # unsafe fixes are applied (--unsafe)
    # Loads a module this one imports, by name, to read (slim_modules.ModuleLoader; None: none is read).
    load_module: Optional[Callable[[str], Optional[object]]] = None
    module: Optional[cst.Module] = None
    tree: Optional[object] = None  # the module's stdlib tree, when the stdlib parser takes it
    method_classes: Dict[int, cst.ClassDef] = field(default_factory=dict)  # id(method) -> its top-level class
    method_helpers: Dict[str, helpers.ReaderHelper] = field(default_factory=dict)  # `Class.method` -> reader method
    # Reader methods of families of classes of other modules (dispatched_readers): method ->
    # (one class's method as a ReaderHelper, the name of the sibling that reads a file's records,
    # what the methods return as batch_join's element: "dict", "single" or "tuple").
    dispatched: Dict[str, Tuple[helpers.ReaderHelper, str, str]] = field(default_factory=dict)
    # Reader methods other code may hand a queue (name -> who): they stay, and so do their pipelines.
    kept_methods: Dict[str, str] = field(default_factory=dict)
    # Reader helpers imported from other modules that stay as they are (local name -> why): the
    # chains that call them stay too, with that reason.
    refused_helpers: Dict[str, str] = field(default_factory=dict)
    # Functions whose returned per-record structure other modules may use (name -> why): their
    # pipelines stay (returned_records).
    kept_results: Dict[str, str] = field(default_factory=dict)
    # function -> why a caller in another module may pass its captured parameter a stateful value.
    kept_captures: Dict[str, str] = field(default_factory=dict)
    # function -> its parameters for which callers in other modules pass functions that draw
    # (drawn_arguments): the map function calls them for each record.
    drawn_params: Dict[str, Set[str]] = field(default_factory=dict)
    # Attributes other modules of the run mention (`.name` in the run's keep: name -> why): a
    # reader or queue the object holds, or the method batching their records, so named stays.
    mentioned_attributes: Dict[str, str] = field(default_factory=dict)
    # Reader and record-source methods (`Class.method`) that are static: their calls pass no object.
    static_methods: Set[str] = field(default_factory=set)
    # Provider factories of other modules (provider_factories.py): (function, object, method) ->
    # (the factory's sibling that returns its records and slim Dataset, the dotted name of the
    # class the object is made from); and the calls of them that a pipeline took, as
    # ((function, object, method), call).
    provider_factories: Dict[Tuple[str, str, str], Tuple[str, str]] = field(default_factory=dict)
    factory_calls: List[Tuple[Tuple[str, str, str], cst.Call]] = field(default_factory=list)
    # Record-source methods of classes of other modules (`Class.method` -> that class's node), and
    # the Receivers of their modules by dotted module name (engine.ImportedSource).
    foreign_classes: Dict[str, cst.ClassDef] = field(default_factory=dict)
    foreign_receivers: Dict[str, receivers.Receivers] = field(default_factory=dict)
    # Functions (`f`) and methods (`Class.method`, of this module or another's, foreign_classes)
    # that only return a new TensorFlow reader (reader_makers.py).
    reader_makers: Dict[str, "reader_makers.Maker"] = field(default_factory=dict)
    _classes: Optional[class_attrs.ModuleClasses] = None
    _receivers: Optional[receivers.Receivers] = None

    def class_attrs(self, function: cst.CSTNode, static: bool = False) -> Optional[class_attrs.ClassAttrs]:
        """The `self.attr` uses of the class `function` is a method of (None: not a method; with
        `static`, a static method counts as one)."""
        cls = self.method_classes.get(id(function))
        if cls is None or self.module is None:
            return None
        attrs = self._module_classes().of(cls)
        return attrs if static or attrs.method_of(function) else None

    def receivers(self) -> receivers.Receivers:
        """The classes of objects the module's code calls methods on (receivers.py)."""
        if self._receivers is None:
            self._receivers = receivers.Receivers(self.module, self._module_classes(), self.foreign_receivers,
                                                  self.imports)
        return self._receivers

    def _module_classes(self) -> "class_attrs.ModuleClasses":
        """The `self.attr` uses of every class of the module, made once for class_attrs and receivers."""
        if self._classes is None:
            # line_of looked up when asked: the classes may be made before the engine sets it.
            self._classes = class_attrs.ModuleClasses(
                self.module, lambda node: self.line_of(node) if self.line_of else 0, set(self.imports.aliases),
                self.tree)
        return self._classes


def producer_target(stmt: cst.BaseStatement) -> str:
    if isinstance(stmt, cst.If):  # a producer made in if/elif arms: each arm binds the same name
        stmt = stmt.body.body[0]
    return cstutil.single_assign(stmt)[0].value


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class _BlockRecogniser:
    def __init__(self, body: Sequence[cst.BaseStatement], scope: cst.CSTNode, context: ModuleContext,
                 names: NamePool, source_of: Callable[[cst.CSTNode], str], queues=None, withs=None,
                 exclusive: Optional[Counter] = None):
        self.body = body
        self.exclusive = exclusive or Counter()  # loads in arms exclusive with this block (not counted)
        self.withs = withs or [()] * len(body)  # the `with`s enclosing each leaf, outermost first
        self.queues = queues or handbuilt.BlockQueues()
        self.context = context
        self.imports = context.imports
        self.names = names
        self.source_of = source_of
        self.scope = scope
        self._scope_uses = None
        self._uses = {}
        self.providers: Dict[str, Tuple[int, type, cst.Call]] = {}  # slim providers of the block, by name
        self.providers_read: Set[str] = set()
        self.provider_gets: Dict[str, int] = {}  # a provider read in if/else arms is used once per get
        self.branch_refusal: Optional[str] = None  # why the last if/else tried was not one tail per arm
        self.branch_records = None  # the last if/else's per-record code in its arms (branch_records.ArmRecords)
        self.branch_fallthrough = False  # the last if/elif tried has no `else`: a path batches nothing
        self.records_arm: Optional[int] = None  # the last if/else's arm that batches nothing (Match.records_arm)
        self.batch_later: Tuple[cst.BaseStatement, ...] = ()  # its batching arm's statements after the batching
        self.arm_later: Tuple[int, ...] = ()  # every arm batching: how many statements follow each arm's batching
        self.batch_unpacking: Tuple[str, ...] = ()  # with them: Match.records_unpacking
        self.own_records = None  # the last if/else's arm without batching takes its names (_own_records_arm)
        self.captured_reads: Tuple[int, ...] = ()  # the last chain checked: Match.captured_reads
        self.map_copies: Tuple[str, ...] = ()  # the last chain checked: Match.map_copies
        self.captured_params: Tuple = ()  # the last chain checked: Match.captured_params
        self.drawn_params: Tuple[str, ...] = ()  # the last chain checked: Match.drawn_params
        self.unseen_calls: Tuple = ()  # the last chain checked: Match.unseen_calls
        self.record_draws = False  # the last chain checked: Match.record_draws
        self._local_functions: Dict[str, Optional[Tuple[cst.FunctionDef, ast.AST]]] = {}  # _local_function's

    # Name uses are computed on demand: most blocks hold no producer and need none.
    @property
    def scope_loads(self) -> Counter:
        if self._scope_uses is None:
            uses = cstutil.scoped_uses(self.scope)
            loads = Counter(uses.loads)
            if isinstance(self.scope, cst.FunctionDef):
                # The function's own name, as the def statement spells it, is no use of a local.
                loads[self.scope.name.value] -= 1
            loads.subtract(self.exclusive)  # read only where this block never ran
            self._scope_uses = (loads, uses.stores)
        return self._scope_uses[0]

    @property
    def scope_stores(self) -> Set[str]:
        self.scope_loads
        return self._scope_uses[1]

    @property
    def uses(self) -> "_LeafUses":
        return _LeafUses(self)

    def run(self) -> BlockResult:
        result = BlockResult()
        producers: Dict[str, Tuple[int, type, cst.Call]] = {}
        readers: Dict[str, Tuple[int, type, cst.Call]] = {}
        branched: Dict[int, Tuple[cst.If, Tuple[cst.Call, ...], cst.Call]] = {}  # if/elif producers
        sourced: Dict[int, str] = {}  # producers made by a queue-source helper: the helper's name
        for index, stmt in enumerate(self.body):
            assign = cstutil.single_assign(stmt)
            if isinstance(stmt, cst.If) and slim_provider.gets_in(stmt, self.providers):
                try:  # `if c: x = provider.get(a) else: x = provider.get(b)`: the if decodes
                    result.matches.append(self._provider_read(index))
                except _Broken as broken:
                    result.failures.append(Failure(broken.calls, str(broken), broken.finding))
                continue
            if isinstance(stmt, cst.If):
                try:
                    found = self._branched_producer(stmt)
                except _Broken as broken:
                    result.failures.append(Failure(broken.calls, str(broken), broken.finding))
                    continue
                if found is not None:
                    name, rule, call, arms, rewritten = found
                    producers[name] = (index, rule, call)
                    branched[index] = (rewritten, arms, call)
                continue
            if isinstance(stmt, cst.For):
                try:
                    match = self._loop_at(index, stmt, producers, readers)
                except _Broken as broken:
                    result.failures.append(Failure(broken.calls, str(broken)))
                    continue
                if match is not None:
                    self._with_producer_statement(match, branched, sourced)
                    result.matches.append(match)
                continue
            if assign is None:
                continue
            target, value = assign
            name = _target_name(target)
            source = queue_sources.called(value, self.context.queue_sources) if name else None
            if source is not None:
                try:
                    rule, call, rewritten = self._queue_source(source, value, stmt)
                except _Broken as broken:
                    result.failures.append(Failure(broken.calls, str(broken)))
                    continue
                producers[name] = (index, rule, call)
                branched[index] = (rewritten, (), call)
                sourced[index] = source.name
                continue
            found = _call_with_rule(value, self.imports, PRODUCERS)
            if found and name:
                producers[name] = (index,) + found
                continue
            found = _call_with_rule(value, self.imports, READERS)
            if found and name:
                readers[name] = (index,) + found
                continue
            if name and self.context.reader_makers and reader_makers.may_make(
                    value, reader_makers.names(self.context.reader_makers)):
                try:  # `reader = photos.reader()`: a method that only returns a reader (reader_makers.py)
                    made = self._reader_ctor(value, index)
                except _Broken as broken:
                    result.failures.append(Failure(broken.calls, str(broken), broken.finding))
                    continue
                if made is not None:
                    readers[name] = (index, made[0], value)
                    continue
            found = _call_with_rule(value, self.imports, SLIM_PROVIDERS)
            if found and name:
                self.providers[name] = (index,) + found
                continue
            if name and self._factory_key(value) is not None:
                self.providers[name] = (index, provider_factories.FactoryProvider, value)
                continue
            slicer = _call_with_rule(value, self.imports, SLICERS)
            slim_read = _call_with_rule(value, self.imports, SLIM_READS)
            rows = dequeued_rows.dequeued(value, self.imports.resolve, producers, ranges=self._tf_module() is not None)
            try:
                if rows:
                    match = self._rows_at(index, target, rows, producers)
                elif slicer:
                    match = self._slices_at(index, target, slicer)
                elif slim_read:
                    match = self._slim_read_at(index, target, slim_read)
                else:
                    match = self._read_at(index, target, value, producers, readers)
            except _Broken as broken:
                calls = tuple(broken.calls)
                for _, arms, call in branched.values():  # the arms' calls stand for the producer
                    if any(c is call for c in calls):
                        calls += arms
                result.failures.append(Failure(calls, str(broken), broken.finding))
                continue
            if match is not None:
                self._with_producer_statement(match, branched, sourced)
                result.matches.append(match)
        for name in sorted(set(self.providers) - self.providers_read):
            index, _, call = self.providers[name]
            finder = _CallFinder(self.imports, BATCHERS)  # the batching that follows is told why too
            for stmt in self.body[index + 1:]:
                cstutil.walk(stmt, finder)
            result.failures.append(Failure((call,) + tuple(finder.calls[:1]), self._unread_provider(name, index)))
        _drop_joined(result, self.names.fresh)
        self._drop_captures(result)
        self._check_shared_readers(result)
        self._check_chosen_helpers(result)
        return result

    def _tf_module(self) -> Optional[str]:
        """The module's name for TensorFlow (or its compat.v1 module), or None."""
        return self.imports.local_name_for("tensorflow") or self.imports.local_name_for("tensorflow.compat.v1")

    def _drop_captures(self, result: BlockResult) -> None:
        """A pipeline whose per-record code reads another queue's next element (a chain it does
        not zip) would capture that one tensor in its map function: not rewritten."""
        for match in list(result.matches):
            outside = [index for index in match.captured_reads if index not in _leaves_of(match)]
            if outside:
                result.matches.remove(match)
                result.failures.append(Failure(match.calls, "the per-record code reads what line %d takes from "
                                               "another queue or iterator, which is not zipped with this chain: the "
                                               "map function would capture that one tensor" % self._line_of(outside[0])))

    @staticmethod
    def _with_producer_statement(match: Match, branched, sourced) -> None:
        """A producer made in if/elif arms, or by a queue-source helper, leaves a statement naming
        the files in its place; a queue-source helper is used by the match."""
        if not match.removed_indices:  # an unbatched slim read removes no producer statement
            return
        if match.removed_indices[0] in branched:
            match.producer_branches, arms, _ = branched[match.removed_indices[0]]
            match.calls = tuple(match.calls) + tuple(arms)
        if match.removed_indices[0] in sourced:
            match.helpers_used = tuple(match.helpers_used) + (sourced[match.removed_indices[0]],)

    def _queue_source(self, source: queue_sources.QueueSource, call: cst.Call, stmt: cst.BaseStatement):
        """(rule, the producer call as written here, the statement naming the files in place of
        `queue = source(...)`) for a call of a queue-source helper."""
        files = self.names.fresh("filenames")
        try:
            producer = queue_sources.producer_call(source, call, files, self.context.module_names,
                                                   self._caller_bound())
        except helpers.NotMovable as error:
            raise _Broken((source.call,), "the producer's arguments cannot be moved out of %s(): %s"
                          % (source.name, error))
        callee = self.context.kept_helpers.get(source.name, source.name)
        return source.rule, producer, queue_sources.files_statement(call, files, callee, stmt.leading_lines)

    def _check_shared_readers(self, result: BlockResult) -> None:
        """Unbatched reads through one whole-file reader are rewritten together, or none of them."""
        _all_or_none(result, lambda match: match.shared_reader and match.shared_reader[1],
                     lambda name: self.scope_loads[name], "the reader `%s` is read %d times, and not every read "
                     "could be rewritten")

    def _check_chosen_helpers(self, result: BlockResult) -> None:
        """A variable holding one of several reader helpers hands each call the record once its
        helpers are migrated: every call of it is rewritten, or none (the arms' bindings, uses of
        the helpers, are counted with the first)."""
        def called(variable: str) -> int:
            counts = _NameCounts(variable)
            cstutil.walk(self.scope, counts)
            return counts.called

        kept = _all_or_none(result, lambda match: match.pipeline.reader_choice and match.pipeline.reader_choice[0],
                            called, "`%s` is called %d times, and not every call could be rewritten")
        for matches in kept:
            for match in matches[1:]:
                match.counted_helpers = ()

    def _branched_producer(self, stmt: cst.If):
        """(queue name, rule, call, every arm's call, the if with each arm naming its values) for
        `if a: q = producer(x, ...)` / `elif b: q = producer(y, ...)` (/ `else: ...`): the call is
        the producer over a fresh name for each argument the arms give differently (the file names,
        `num_epochs`...), bound in each arm; `shuffle=True` in an `if` and False in its `else` is the
        test itself. The arms' capacities differ in how many names the queue buffered, which a
        dataset does not: the first arm's stands. With nothing left to name, the if is None (it goes)."""
        arms, node = [], stmt
        while node is not None:
            body = node.body
            if not (isinstance(body, cst.IndentedBlock) and len(body.body) == 1):
                return None
            assign = cstutil.single_assign(body.body[0])
            found = _call_with_rule(assign[1], self.imports, PRODUCERS) if assign else None
            if not (found and isinstance(assign[0], cst.Name)):
                return None
            arms.append((assign[0].value, found[0], found[1], body.body[0]))
            node = node.orelse if isinstance(node, cst.If) else None  # an `else:` arm is the last
        if len(arms) < 2 or len({(name, rule) for name, rule, _, _ in arms}) != 1:
            return None
        name, rule, call, _ = arms[0]
        try:
            bounds = [rule.bind(arm_call) for _, _, arm_call, _ in arms]
        except Unsupported:
            return None
        if any("string_tensor" not in bound for bound in bounds):
            return None
        # an argument an arm leaves out is the producers' default there
        others = [dict(PRODUCER_DEFAULTS, **{k: _code(v) for k, v in bound.items()}) for bound in bounds]
        differ = sorted({k for other in others for k in set(other) | set(others[0])
                         if other.get(k) != others[0].get(k)} - {"capacity"},  # (how many names it buffered)
                        key=lambda k: (k != "string_tensor", k))  # the file names first
        arm_calls = tuple(arm_call for _, _, arm_call, _ in arms)
        absent = [k for k in differ if any(k not in other for other in others)]
        if absent:
            raise _Broken(arm_calls, "its producer is made in if/elif arms that differ in `%s=`, given in some "
                          "arms only; give it in every arm, and qmigrate can name each arm's value for the "
                          "dataset" % absent[0])
        if any(self.imports.resolve(c.func) == MATCH_FILENAMES_ONCE for bound in bounds
               for c in cstutil.calls_of(bound["string_tensor"])):
            raise _Broken(arm_calls, "its producer is made in if/elif arms over match_filenames_once, a variable "
                          "that a one-shot iterator cannot capture once it is named in the arms")
        _, tests, fallthrough = if_chain(stmt)
        arm_lines = [[] for _ in arms]  # per arm: the statements naming its values
        # The first arm's arguments replaced all at once, by identity (a transformer's pass makes
        # every node anew: a second pass would find none of the first call's), then those it left out.
        replaced, added = {}, []
        for key in differ:
            values = [others[at][key] for at in range(len(arms))]
            if key in bounds[0] and len(arms) == 2 and not fallthrough and sorted(values) == [
                    "False", "True"] and branch_records.calls_nothing(tests[0]):
                # `shuffle=True` in the `if`, False in the `else`: the test itself, made where the producer stood
                test = _code(tests[0])
                if values[0] != "True":
                    test = "not %s" % (test if isinstance(tests[0], (cst.Name, cst.Attribute)) else "(%s)" % test)
                replaced[id(bounds[0][key])] = cst.parse_expression(test)
                continue
            named = self.names.fresh("filenames" if key == "string_tensor" else key)
            for at, other in enumerate(others):
                arm_lines[at].append("%s = %s\n" % (named, other[key]))
            if key in bounds[0]:
                replaced[id(bounds[0][key])] = cst.Name(named)
            else:
                added.append(cst.Arg(cst.Name(named), keyword=cst.Name(key), equal=cst.AssignEqual(
                    cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        call = call.visit(_ReplaceByIdentity(replaced)) if replaced else call
        if added:
            call = call.with_changes(args=list(call.args) + added)
        if not any(arm_lines):  # the arms made one producer: nothing is left for them to name
            return name, rule, call, arm_calls, None
        arm_values = {id(arm_stmt): cst.FlattenSentinel([
            cst.parse_statement(text).with_changes(leading_lines=arm_stmt.leading_lines if at == 0 else [])
            for at, text in enumerate(lines)]) for (_, _, _, arm_stmt), lines in zip(arms, arm_lines)}
        rewritten = stmt.visit(_ReplaceByIdentity(arm_values))
        return name, rule, call, arm_calls, rewritten

    def _read_at(self, index, target, value, producers, readers) -> Optional[Match]:
        """The pipeline read at leaf `index` (`k, v = reader.read(q)` or `x = read_helper(q)`), if any."""
        if slim_provider.gets_in(value, self.providers):
            return self._provider_read(index)
        read = _read_call(value)
        if read and (isinstance(read[0], cst.Attribute) or "." in (read[1] or "")):
            return self._read_on_self(index, target, read, producers, readers)
        if read and read[1] in producers:
            if isinstance(read[0], cst.Call):  # `tf.TFRecordReader().read(queue)`: made where it reads
                found = _call_with_rule(read[0], self.imports, READERS)
                if found:
                    return self._link(producers[read[1]], (None,) + found, index, target, read[2])
            elif read[0] in readers:
                return self._link(producers[read[1]], readers[read[0]], index, target, read[2])
        readers_count = None
        joined = _repeated_call(value)
        if joined is not None:  # `[read_helper(q) for _ in range(n)]`: n readers for batch_join
            value, readers_count = joined
        helper, name = self._reader_helper(value), None
        attribute = self._attribute_helper(value) if helper is None else None
        if attribute is not None:  # `data_utils.read(queue)`: a helper of a module imported as a name
            helper = self.context.reader_helpers[attribute]
        choice = self._chosen_helpers(index, value) if helper is None and readers_count is None else None
        if choice is not None:  # `read(queue)`, `read` bound to one of several reader helpers
            helper = choice[1][0]
        method = self._method_helper(index, value, producers) if helper is None else None
        if method is not None:  # `self.read(queue)`: called as the function, the object first
            name, helper, value = method
        if helper is None and readers_count is None:
            source = self._method_source(index, value)
            if source is not None:  # `x = self.get_example(...)`: a method that makes its producer and reader
                return self._link_source(source[1], index, source[3], target, source[0], value)
        dispatched = self._dispatched_helper(value) if helper is None else None
        if dispatched is not None:  # `reader.prepare_reader(queue)`, the class chosen at run time
            helper, value, name = dispatched
        if helper is None:
            self._refuse_method_reader(index, value, producers)
        if helper is None and readers_count is None and isinstance(value, cst.Call) and isinstance(
                value.func, cst.Name) and value.func.value in self.context.record_sources:
            return self._link_source(self.context.record_sources[value.func.value], index, value, target)
        if helper is None:
            return None
        try:
            queue = helpers.bind_call(helper.function, value).get(helper.queue_param)
        except helpers.NotMovable:
            return None
        if not (isinstance(queue, cst.Name) and queue.value in producers):
            return None
        refused = self.context.refused_helpers.get(attribute or helper.name) \
            if name is None and choice is None else None
        if refused is not None:
            raise _Broken(self._chain_calls(index, (None, queue.value), producers, {}), refused)
        match = self._link_helper(producers[queue.value], helper, index, value, target, readers_count,
                                  name or attribute, choice)
        if dispatched is not None:  # each class reads its files with its records method
            records = "%s.%s" % (value.args[0].value.value, self.context.dispatched[helper.name][1])
            match.pipeline = dataclasses.replace(match.pipeline, reader=dataclasses.replace(
                match.pipeline.reader, records_function=records, arguments=(), read_up_to=None, skip_lines=None))
        if choice is not None:  # each arm's binding is a use of its helper, migrated by the calls together
            match.counted_helpers = choice[2]
        return match

    def _dispatched_helper(self, value):
        """(a ReaderHelper of one of the classes, the call written with the object first, its key
        `*.method`) for `obj.method(queue)` when `method` is the reader method of a family of
        classes of the run (dispatched_readers) and `obj` a name the scope does not bind (a
        parameter, or a name of the module); None otherwise."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name) and len(value.args) == 1
                and value.args[0].keyword is None and not value.args[0].star):
            return None
        found = self.context.dispatched.get(value.func.attr.value)
        if found is None or value.func.value.value in self.scope_stores:
            return None
        call = value.with_changes(func=cst.Name(value.func.attr.value), args=[cst.Arg(value.func.value)] + [
            value.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        return found[0], call, "*." + value.func.attr.value

    def _method_helper(self, index: int, value, producers):
        """(`Class.method`, its ReaderHelper, the call written as a call of the function with the
        object first) for `self.method(...)`, a reader method of this method's class; None otherwise.
        _Broken when other code hands that method a queue where its pipeline stays: migrated, the
        method would take records from every caller."""
        name, self_name, call = self._self_method_call(value, index, producers)
        helper = self.context.method_helpers.get(name)
        if helper is None:
            return None
        queues = [arg.value for arg in value.args if isinstance(arg.value, cst.Name) and arg.value.value in producers]
        # A method that forwards its queue to another reader method: every method of the chain
        # takes the record, so none of them may stay as it is for other callers.
        kept, link, inner = None, helper, name
        while kept is None:
            if inner in self.context.kept_methods:
                kept = inner
            elif link.via is None:
                break
            else:
                inner, link = helpers.forwarded_to(inner, link), link.via[0]
        if kept is not None:
            chain = self._chain_calls(index, (None, queues[0].value), producers, {}) if queues else ()
            raise _Broken(chain + (helper.reader_call,),
                          "its queue is read by the method %s.%s(), which stays as it is for %s (they may hand "
                          "it a queue); migrated, it would take records from every caller" % (
                              self_name, kept.rsplit(".", 1)[1], self.context.kept_methods[kept]))
        return name, helper, call

    def _self_method_call(self, value, index: int, producers=None, chained: bool = False
                          ) -> Tuple[Optional[str], Optional[str], Optional[cst.Call]]:
        """(`Class.method`, the object's name, the call written as a call of the function with the
        object first) when `value` is `self.method(...)` in a method of a top-level class, or
        `obj.method(...)` on a name receivers.py proves an instance of a top-level class; Nones
        otherwise. `chained`: the object may also be a chain of attributes of a name
        (`io.reader.method(...)`, receivers.py proving each property); its name is then that
        dotted text. _Broken when `method` is a reader or record-source method of the module and
        the object's class cannot be proven (the reason names the variable or attribute)."""
        if not (isinstance(value, cst.Call) and (_on_object(value.func) or chained and _on_chain(value.func))):
            return None, None, None
        self_name, method = dotted(value.func.value), value.func.attr.value
        cls = self.context.method_classes.get(id(self.scope)) if isinstance(value.func.value, cst.Name) else None
        if cls is None or self.scope.decorators or not self.scope.params.params \
                or self.scope.params.params[0].name.value != self_name:
            cls = self._receiver_class(value, index, producers or {})
        if cls is None:
            return None, None, None
        key = "%s.%s" % (cls.name.value, method)
        first = [] if key in self.context.static_methods else [cst.Arg(value.func.value)]
        return key, self_name, value.with_changes(func=cst.Name(method), args=first + list(value.args))

    def _receiver_class(self, value: cst.Call, index: int, producers) -> Optional[cst.ClassDef]:
        """The class of `obj` in `obj.method(...)` (receivers.py), when some class of the module
        has a reader or record-source method of that name (None otherwise, or not followed)."""
        method = value.func.attr.value
        wanted = [key for key in list(self.context.method_helpers) + list(self.context.record_sources)
                  + list(self.context.reader_makers) if key.endswith("." + method) and key.count(".") == 1]
        if not wanted:  # the cheap test first: this runs for every method call assigned in the block
            return None
        scope = self.scope if isinstance(self.scope, (cst.FunctionDef, cst.Module)) else None
        if scope is None:
            return None
        top_level = isinstance(scope, cst.Module) or id(scope) in self.context.method_classes or any(
            function is scope for function in self.context.functions.values())
        try:
            cls = self.context.receivers().class_of(value.func.value, scope, top_level)
        except receivers.Unresolved as why:
            found = self.context.method_helpers.get(wanted[0])
            source = self.context.record_sources.get(wanted[0])
            calls = (found.reader_call,) if found is not None else (
                (source.producer_call, source.reader_call) if source is not None else ())
            queues = [arg.value.value for arg in value.args
                      if isinstance(arg.value, cst.Name) and arg.value.value in producers]
            raise _Broken(calls + self._chain_calls(index, (None, queues[0] if queues else ""), producers, {}),
                          "it calls %s.%s(), a method that %s, on `%s`, whose class qmigrate cannot prove: %s"
                          % (wanted[0].split(".")[0], method, "makes a reader" if wanted[0] in self.context.reader_makers
                             and not calls else "reads a queue", dotted(value.func.value), why))
        key = "%s.%s" % (cls.name.value, method) if cls is not None else None
        if cls is None or key not in wanted or not self.context.receivers().defines_plainly(cls, method):
            return None
        # The very class the method was found in: this module's, or the other module's it came from.
        expected = self.context.foreign_classes.get(key)
        if not (cls is expected if expected is not None else self.context.receivers().owns(cls)):
            return None
        return cls

    def _method_source(self, index: int, value):
        """(`Class.method`, its RecordSource, the object's name, the call written as a call of the
        function with the object first) for `self.method(...)`, a record-source method of this
        method's class; None otherwise. _Broken when the method stays as it is for other callers."""
        name, self_name, call = self._self_method_call(value, index, chained=True)
        source = self.context.record_sources.get(name)
        if source is None:
            return None
        if name in self.context.refused_helpers:  # a method of another module's class, which stays
            raise _Broken(self._chain_calls(index, (None, ""), {}, {}), self.context.refused_helpers[name])
        if name in self.context.kept_methods:
            raise _Broken((source.producer_call, source.reader_call) + self._chain_calls(index, (None, ""), {}, {}),
                          "its records are returned by the method %s.%s(), which stays as it is for %s; "
                          "migrated, it would take a record instead of making its own" % (
                              self_name, value.func.attr.value, self.context.kept_methods[name]))
        return name, source, self_name, call

    def _read_on_self(self, index, target, read, producers, readers) -> Optional[Match]:
        """`key, value = self.reader.read(queue)` / `reader.read(self.queue)`: a reader or queue kept
        on the object, bound once in the class (class_attrs). Bound earlier in this block, its
        binding is the chain's own statement; bound in another method, its call is moved here (its
        arguments must mean the same here) and the binding goes once nothing reads the attribute."""
        attrs = self.context.class_attrs(self.scope)
        if attrs is None:
            return None
        try:
            return self._read_on_attrs(attrs, index, target, read, producers, readers)
        except _Broken as broken:  # the rest of the chain is told the same reason
            broken.calls = tuple(broken.calls) + self._chain_calls(index, read, producers, readers)
            raise

    def _refuse_method_reader(self, index: int, value, producers) -> None:
        """A queue of the block handed to a method of the object (`self.read_data(queue)`): said as
        such, since reader helpers are followed only as module-level functions."""
        if not (isinstance(value, cst.Call) and _on_object(value.func) and any(
                isinstance(arg.value, cst.Name) and arg.value.value in producers for arg in value.args)):
            return  # the cheap test first: this runs for every assignment of the block
        attrs = self.context.class_attrs(self.scope)
        if attrs is None or not (value.func.value.value == attrs.self_name(self.scope)
                                 and value.func.attr.value in attrs.methods):
            return
        queues = [arg.value.value for arg in value.args if isinstance(arg.value, cst.Name)
                  and arg.value.value in producers]
        if queues:
            method = value.func.attr.value
            function = attrs.methods[method]
            helper = helpers.find_reader_helper(function, self.imports)
            if helper is None:
                why = ("which does not read it with a reader of its own (a method that passes the queue on, or "
                       "reads it with a reader kept on `self`, is not followed yet)")
            elif helpers.queue_reads(helper, Counter(cstutil.name_uses(function.body).loads)) != 1:
                why = "which uses its parameter `%s` beyond reader.read()" % helper.queue_param
            elif function.decorators:
                why = "which is decorated (a static or class method has no `self`)"
            elif class_attrs.overridden(attrs.cls, method, self.context.module):
                why = "which a related class of this file defines too, so the call may reach that one"
            else:
                why = "which uses the reader's key, or is defined twice in the class"
            reader = (helper.reader_call,) if helper is not None else ()
            raise _Broken(self._chain_calls(index, (None, queues[0]), producers, {}) + reader,
                          "its queue `%s` is passed to the method self.%s() (line %d), %s" % (
                              queues[0], method, self._line_of(index), why))

    def _chain_calls(self, index, read, producers, readers) -> Tuple[cst.Call, ...]:
        """The calls of the chain around a read that is refused early: a producer or reader of the
        block it names, and the first batching call that reads what it read (for the reasons only)."""
        calls = []
        for found in (producers.get(read[1]), readers.get(read[0]) if isinstance(read[0], str) else None):
            if found is not None:
                calls.append(found[2])
        tainted = set(self.uses[index].stores)
        for later in range(index + 1, len(self.body)):
            uses = self.uses[later]
            if not tainted & set(uses.loads):
                continue
            finder = _CallFinder(self.imports, BATCHERS + JOINERS)
            cstutil.walk(self.body[later], finder)
            if finder.found:
                calls += finder.calls
                break
            tainted |= uses.stores
        return tuple(calls)

    def _read_on_attrs(self, attrs, index, target, read, producers, readers) -> Optional[Match]:
        reader_node, queue_key, up_to = read
        self_name = attrs.self_name(self.scope)
        on_self = []  # (binding, "reader" | "queue", bound in this block)
        if isinstance(reader_node, cst.Attribute):
            if dotted(reader_node.value) != self_name:
                return None
            reader = self._on_self(attrs, reader_node.attr.value, READERS, index, on_self, "reader")
        elif isinstance(reader_node, cst.Call):
            found = _call_with_rule(reader_node, self.imports, READERS)
            reader = (None,) + found if found else None
        else:
            reader = readers.get(reader_node)
        if reader is None:
            return None
        head, _, attr = queue_key.partition(".")
        if attr:
            producer = self._on_self(attrs, attr, PRODUCERS, index, on_self, "queue", reader[2]) \
                if head == self_name else None
        else:
            producer = producers.get(queue_key)
        if producer is None:
            return None
        calls = (producer[2], reader[2])
        key, value = self._read_targets(target, calls)
        tainted = {value} | ({key} if key else set())
        removed = (index,) if reader[0] is None else (reader[0], index)
        match = self._follow(producer, (reader[1], reader[2], None, up_to), index, key, value, tainted, [], calls,
                             removed=removed, reader_index=reader[0],
                             on_self={what for _, what, _ in on_self})
        match.remote_bindings = tuple(binding for binding, _, here in on_self if not here)
        if match.remote_bindings:
            match.object_names = (self.scope.name.value,) + tuple(b.attr for b in match.remote_bindings)
        # Bound and read in this method, the attributes go too: other modules must not name them either.
        match.object_names += tuple(binding.attr for binding, _, here in on_self if here)
        return match

    def _on_self(self, attrs, attr: str, family, read_index: int, on_self: list, what: str, other_call=None):
        """(its index in this block, rule, call) for the reader or producer bound once to
        `self.<attr>`; a binding in another method gets the read's index, its call moved there.
        None when the attribute is bound to no such call; _Broken when it is but is read elsewhere,
        bound more than once, or its call cannot be moved here."""
        others = (other_call,) if other_call is not None else ()
        try:
            binding = attrs.binding(attr)
        except class_attrs.NotProven as error:
            found = self._attr_calls(attrs, attr, family)
            if not found:
                return None
            raise _Broken(tuple(found) + others, "its %s is kept on `self.%s`, and %s" % (what, attr, error))
        found = _call_with_rule(binding.value, self.imports, family)
        if not found:
            return None
        calls = (found[1],) + others
        loads = attrs.loads(attr)
        if len(loads) != 1:
            lines = ", ".join(str(attrs.line_of(use.node)) for use in loads)
            raise _Broken(calls, "its %s `self.%s` is used beyond reader.read() (lines %s), by code qmigrate "
                          "cannot rewrite" % (what, attr, lines))
        if attr in self.context.mentioned_attributes:
            raise _Broken(calls, "its %s `self.%s` is made in %s(), and %s, which the migration removes"
                          % (what, attr, binding.method.name.value, self.context.mentioned_attributes[attr]))
        if binding.method is self.scope:
            position = next((i for i, stmt in enumerate(self.body[:read_index]) if stmt is binding.statement), None)
            if position is None:
                raise _Broken(calls, "its %s `self.%s` is bound in another block of %s() (line %d) than the one "
                              "that reads it" % (what, attr, self.scope.name.value, attrs.line_of(binding.statement)))
            on_self.append((binding, what, True))
            return (position,) + found
        self._movable(attrs, binding, calls, what)
        here = self.scope.name.value
        if here in self.context.mentioned_attributes:
            raise _Broken(calls, "its %s `self.%s` is made once for the object, and %s: two calls of %s() on one "
                          "object shared its records, where two datasets would each read them all"
                          % (what, attr, self.context.mentioned_attributes[here], here))
        self._check_not_repeated(attrs, here, calls, "its %s `self.%s` is made once for the object" % (what, attr))
        if attrs.uses_of(here) > 1 and not self._each_on_a_new_object(here):
            # Two calls would read one queue (or one reader) kept on the object, sharing its records;
            # two datasets would each read them all.
            raise _Broken(calls, "its %s `self.%s` is made once for the object, and this file calls %s() in %d "
                          "places, not each on an object made for it alone, which would share its records"
                          % (what, attr, here, attrs.uses_of(here)))
        on_self.append((binding, what, False))
        # A reader moved here is made where it reads; a producer stands at the read.
        return (read_index if what == "queue" else None,) + found

    def _each_on_a_new_object(self, method: str) -> bool:
        """Whether every call of `.method` in this module is on an object of a class of the module
        that defines it, made for that call alone (fresh_receivers)."""
        tree = self.context.tree
        return isinstance(tree, ast.Module) and fresh_receivers.each_on_a_new_object(
            tree, method, fresh_receivers.classes_defining(tree, method))

    def _attr_calls(self, attrs, attr, family) -> List[cst.Call]:
        """The calls of `family` bound to `self.<attr>` anywhere in the class."""
        calls = []
        for use in attrs.uses.get(attr, ()):
            if use.kind == "bind" and use.statement is not None:
                assign = cstutil.single_assign(use.statement)
                found = _call_with_rule(assign[1], self.imports, family) if assign else None
                if found:
                    calls.append(found[1])
        return calls

    def _movable(self, attrs, binding, calls, what) -> None:
        """The bound call, made in another method, means the same in this one: every name it reads
        is a module-level name neither method rebinds, or `self.<attr>` bound once in __init__ before
        (class_attrs.bound_before); and the binding runs before this method reads it."""
        method, here = binding.method, self.scope
        line = attrs.line_of(binding.statement)
        there_self = attrs.self_name(method)
        if there_self != attrs.self_name(here):
            raise _Broken(calls, "its %s is bound in %s() under another name for the object" % (what, method.name.value))
        if here.name.value == "__init__":
            raise _Broken(calls, "its %s `self.%s` is read in __init__ but bound in %s() (line %d), which runs "
                          "later if at all" % (what, binding.attr, method.name.value, line))
        if method.name.value == "__init__":
            for leaf in blocks.flatten(method.body.body, method.body.body):
                if leaf.original is binding.statement:
                    break
                called = [node.attr.value for node in cstutil.nodes_of(leaf.original, cst.Attribute)
                          if dotted(node.value) == there_self and node.attr.value in attrs.methods]
                if called:
                    raise _Broken(calls, "__init__ calls self.%s() (line %d) before it binds `self.%s`, so which "
                                  "value a method reads there cannot be proven" % (called[0], attrs.line_of(
                                      leaf.original), binding.attr))
        locals_there = cstutil.name_uses(method).stores | _param_names(method)
        locals_here = self.scope_stores | _param_names(here)
        value = binding.value
        attributes = [node for node in cstutil.nodes_of(value, cst.Attribute) if dotted(node.value) == there_self]
        for node in attributes:
            try:
                attrs.bound_before(node.attr.value, method, binding.statement)
            except class_attrs.NotProven as error:
                raise _Broken(calls, "its %s is made in %s() (line %d) from `%s.%s`, which cannot be read in %s() "
                              "with the same value: %s" % (what, method.name.value, line, there_self,
                                                           node.attr.value, here.name.value, error))
        loads = Counter(cstutil.name_uses(value).loads)
        loads[there_self] -= len(attributes)
        for name in sorted(n for n, count in loads.items() if count > 0):
            if name == there_self:
                raise _Broken(calls, "its %s is made in %s() (line %d) from the object itself" % (
                    what, method.name.value, line))
            if name in locals_there or name in locals_here or not (name in self.context.module_names
                                                                   or name in helpers._BUILTINS):
                raise _Broken(calls, "its %s is made in %s() (line %d) from `%s`, a value of that method "
                              "which %s() cannot see; keep it on the object (`self.%s = %s`) in __init__ "
                              "and make the %s from that" % (what, method.name.value, line, name,
                                                             here.name.value, name, name, what))

    def _loop_at(self, index: int, loop: cst.For, producers, readers=None) -> Optional[Match]:
        """The pipeline of `for _ in range(n): <reader>; <read>; ...; examples.append(x)` over a
        producer's queue, batched by `*_join(examples, ...)`: n readers, one file each at a time.
        Or of `for _ in range(n): x = f(queue.dequeue()); ...; examples.append(x)`: n dequeues of
        one producer's rows (_row_loop_at)."""
        try:
            rows = joins.row_loop(loop, lambda stmt: self._row_dequeue(stmt, producers))
        except joins.NotAReaderLoop as refused:
            calls = tuple(producers[name][2] for name in producers
                          if name in cstutil.name_uses(loop.body).loads)
            if not calls:
                return None
            raise _Broken(calls + self._joined_calls(index, refused), str(refused))
        if rows is not None:
            return self._row_loop_at(index, loop, rows, producers)
        try:
            grouped = group_reads.group_loop(loop, _read_call)
        except joins.NotAReaderLoop as refused:
            calls = tuple(call for stmt in loop.body.body for call in cstutil.calls_of(stmt)
                          if rule_for(self.imports.resolve(call.func)) in READERS)
            calls += self._read_many_calls(index, loop, refused, producers)
            if not calls:
                return None
            raise _Broken(calls, str(refused))
        if grouped is not None and readers and grouped.reader in readers:
            queue = _read_call(grouped.read_value)[1]
            if queue in producers:
                return self._group_loop_at(index, loop, grouped, producers[queue], readers[grouped.reader])
        try:
            makers = reader_makers.names(self.context.reader_makers)
            found = joins.reader_loop(loop, lambda expr: self._reader_ctor(expr, index) is not None
                                      or reader_makers.may_make(expr, makers), _read_call, self._helper_read)
        except joins.NotAReaderLoop as refused:
            calls = tuple(call for stmt in loop.body.body for call in cstutil.calls_of(stmt)
                          if rule_for(self.imports.resolve(call.func)) in READERS)
            if refused.reader is not None:  # a reader made before the loop: the chain around it is told
                calls += self._read_many_calls(index, loop, refused, producers)
            if not calls:
                return None
            raise _Broken(calls, str(refused))
        if found is None:
            return None
        if found.helper_queue is not None:
            return self._helper_loop_at(index, loop, found, producers)
        reader, queue, up_to = _read_call(found.read_value)
        if queue not in producers:
            return None
        made = cstutil.single_assign(found.reader_stmt)[1] if found.reader_stmt is not None else reader
        reader_found = self._reader_ctor(made, index)
        if not reader_found and reader_makers.may_make(made, makers):
            into = self.queues.accepted.get(index)
            raise _Broken((producers[queue][2],) + (into.calls if into is not None else ())
                          + self._joined_calls(index, found),
                          "its loop's reader comes from `%s`, which qmigrate cannot prove calls a function or "
                          "method that only returns a TensorFlow reader (the object's class is not proven: a "
                          "parameter, a name bound more than once, or made elsewhere)" % self.source_of(made))
        if not reader_found:
            return None
        # A reader maker's call is no TensorFlow call: nothing is said about it.
        calls = (producers[queue][2],) + ((reader_found[1],) if reader_found[2] is None else ())
        into = self.queues.accepted.get(index)  # each reader adds its enqueue op of a hand-built queue
        if into is not None and into.enqueue_index == index and any(c is found.element for c in into.calls):
            return self._loop_into_queue(index, found, producers[queue], reader_found, up_to, calls, into)
        joined = self._joined_calls(index, found)
        calls += joined
        created = self._check_loop_list(index, found, calls, joined)
        key, value = self._read_targets(found.read_target, calls)
        element = self._loop_element(found, calls)
        self._check_loop_locals(index, loop, found, calls)
        tainted = {found.list_name} | (cstutil.name_uses(loop.body).stores - {found.list_name})
        statements = tuple(self.source_of(stmt) for stmt in found.record_stmts)
        return self._follow(producers[queue], reader_found + (up_to,), index, key, value,
                            tainted, [index], calls, removed=(created[0], index),
                            join=(self.source_of(found.count), found.list_name, None), loop_element=element,
                            record_statements={index: statements})

    def _group_loop_at(self, index: int, loop: cst.For, found: "group_reads.GroupLoop", producer,
                       reader) -> Match:
        """`for _ in range(n): _, v = reader.read(queue); ...; group.append(x)` with the reader made
        before the loop in this block, the list batched by a batcher with enqueue_many=True
        (group_reads.py): the records read in groups of n, the short last group lost."""
        reader_index, reader_rule, reader_call = reader
        calls = (producer[2], reader_call)
        batchings = ()
        for later in range(index + 1, len(self.body)):
            if found.list_name in self.uses[later].loads:
                finder = _CallFinder(self.imports, BATCHERS + JOINERS)
                cstutil.walk(self.body[later], finder)
                batchings += tuple(finder.calls)
        calls += batchings
        count = self.source_of(found.count)
        joined = [call for call in batchings if rule_for(self.imports.resolve(call.func)) in JOINERS]
        if len(batchings) != 1 or joined:
            raise _Broken(calls, group_reads.refusal("join" if joined else None, False, False, found.reader,
                                                     found.list_name, count))
        created = self._check_loop_list(index, found, calls, batchings)
        self._check_loop_locals(index, loop, found, calls)
        key, value = self._read_targets(found.read_target, calls)
        tf = self._tf_module() or "tf"
        returns = group_reads.element_source(found.element, value, tf, self.source_of)
        # Only the list leaves the loop: its other names are unused after it (_check_loop_locals).
        tainted = {found.list_name}
        statements = tuple(self.source_of(stmt) for stmt in found.record_stmts)
        removed = ((reader_index,) if reader_index is not None else ()) + (created[0], index)
        return self._follow(producer, (reader_rule, reader_call, None, None), index, key, value, tainted,
                            [index] if statements else [], calls, removed=removed, reader_index=reader_index,
                            loop_element=("single", returns), record_statements={index: statements},
                            group=(count, found.list_name, found.reader))

    def _read_many_calls(self, index: int, loop: cst.For, refused: "joins.NotAReaderLoop",
                         producers) -> Tuple[cst.Call, ...]:
        """The calls of the chain of a loop that reads one reader made before it: the producers it
        reads, that reader's constructor in this block, and the batchings of the loop's list after
        it; () when the loop reads no producer of this block."""
        read = tuple(producers[name][2] for name in sorted(producers) if name in cstutil.name_uses(loop.body).loads)
        if not read:
            return ()
        made = ()
        for earlier in range(index - 1, -1, -1):
            if refused.reader in self.uses[earlier].stores:
                assign = cstutil.single_assign(self.body[earlier])
                found = _call_with_rule(assign[1], self.imports, READERS) if assign else None
                made = (found[1],) if found else ()
                break
        batched = ()
        for later in range(index + 1, len(self.body)):
            if refused.list_name is not None and refused.list_name in self.uses[later].loads:
                finder = _CallFinder(self.imports, BATCHERS + JOINERS)
                cstutil.walk(self.body[later], finder)
                batched += tuple(finder.calls)
        return read + made + batched

    def _reader_ctor(self, expr, index: int):
        """(rule, call, the reader's arguments moved from elsewhere or None) when `expr` makes a
        reader: a TensorFlow reader class called, or a reader maker (reader_makers.py) of the
        module, or a method of one on an object receivers.py proves its instance; else None.
        _Broken (receivers.Unresolved) when the object's class cannot be proven."""
        found = _call_with_rule(expr, self.imports, READERS)
        if found:
            return found[0], found[1], None
        if not (isinstance(expr, cst.Call) and not expr.args and self.context.reader_makers):
            return None
        if isinstance(expr.func, cst.Name):
            name = expr.func.value if expr.func.value not in self.scope_stores else None
        else:
            name = self._self_method_call(expr, index)[0]
        maker = self.context.reader_makers.get(name) if name else None
        if maker is None and name is None and isinstance(expr.func, cst.Attribute) and isinstance(
                expr.func.value, cst.Name) and expr.func.value.value not in self.scope_stores:
            # `dataset.reader()`, every class of the run defining it making one reader (dispatched_readers)
            maker = self.context.reader_makers.get("*." + expr.func.attr.value)
        return (maker.rule, expr, {}) if maker is not None else None

    def _record_loop(self, index: int, tainted: Set[str], calls):
        """(index of the list's `[]`, (joins.RecordLoop, its element's kind and return)) for the loop
        at `index` that copies the per-record code for a `*_join` (joins.record_loop), or None.
        _Broken with the reason for such a loop that cannot become the map function."""
        loop = self.body[index]
        found = joins.record_loop(loop, tainted)
        if found is None:
            return None
        finder = _CallFinder(self.imports, BATCHERS + BUCKETERS + JOINERS)
        cstutil.walk(loop, finder)
        if finder.found:  # it batches in each iteration: a tower loop's, not copies for a join
            return None
        joined = self._joined_calls(index, found)
        if not joined:
            return None
        if found.refused:
            raise _Broken(calls + joined, found.refused)
        if found.thread_var is not None and self.scope_loads[found.thread_var] != cstutil.name_uses(
                loop).loads.count(found.thread_var):  # (the loop's target counts as one, as in scope_loads)
            raise _Broken(calls + joined, "the loop's variable `%s`, which its copies of the per-record code read, "
                          "is also read outside the loop, where it would no longer be bound" % found.thread_var)
        calls = calls + joined
        created = self._check_loop_list(index, found, calls, joined)
        element = self._loop_element(found, calls)
        self._check_loop_locals(index, loop, found, calls)
        self._check_no_chain_inside(index, calls, tainted)
        return created[0], (found, element)

    def _row_dequeue(self, stmt: cst.BaseStatement, producers) -> Optional[cst.Call]:
        """The `queue.dequeue()` of a row producer of this block inside `stmt`, or None."""
        for call in cstutil.calls_of(stmt):
            rows = dequeued_rows.dequeued(call, self.imports.resolve, producers)
            if rows is not None and rows[0] is not None:
                return call
        return None

    def _row_loop_at(self, index: int, loop: cst.For, found: "joins.RowLoop", producers) -> Match:
        """n dequeues of one producer's rows in a loop, each with the same per-record code, the
        list batched by `*_join`: the rows are the records (dequeued_rows), mapped n at a time,
        the dequeue replaced by the map function's row."""
        queue, rule, call = dequeued_rows.dequeued(found.dequeue, self.imports.resolve, producers)
        producer = (producers[queue][0], dequeued_rows.Rows(rule), call)
        calls = (call,)
        joined = self._joined_calls(index, found)
        calls += joined
        created = self._check_loop_list(index, found, calls, joined)
        element = self._loop_element(found, calls)
        self._check_loop_locals(index, loop, found, calls)
        row = self._fresh_local("row", *[self.source_of(stmt) for stmt in found.record_stmts])
        first = found.record_stmts[0].deep_replace(found.dequeue, cst.Name(row))
        statements = (self.source_of(first),) + tuple(self.source_of(stmt) for stmt in found.record_stmts[1:])
        tainted = {found.list_name} | (cstutil.name_uses(loop.body).stores - {found.list_name})
        return self._follow(producer, None, index, None, row, tainted, [index], calls, removed=(created[0],),
                            params=(row,), join=(self.source_of(found.count), found.list_name, None),
                            loop_element=element, record_statements={index: statements})

    def _helper_read(self, value) -> Optional[str]:
        """The queue name `read_helper(queue)` passes a reader helper of the module, or None."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        helper = self.context.reader_helpers.get(value.func.value)
        if helper is None or value.func.value in self.scope_stores:
            return None
        try:
            queue = helpers.bind_call(helper.function, value).get(helper.queue_param)
        except helpers.NotMovable:
            return None
        return queue.value if isinstance(queue, cst.Name) else None

    def _helper_loop_at(self, index: int, loop: cst.For, found: "joins.ReaderLoop", producers) -> Optional[Match]:
        """A reader loop whose read is a reader helper's call: each call made its own reader on the
        shared queue, as a reader made in the loop does. The helper takes the record; its call,
        given it, is the map function's first statement."""
        queue = found.helper_queue
        if queue not in producers:
            return None
        call = found.read_value
        helper = self.context.reader_helpers[call.func.value]
        calls = (producers[queue][2], helper.reader_call)
        joined = self._joined_calls(index, found)
        calls += joined
        try:
            moved = helpers.reader_arguments(helper, call, self.context.module_names, self._caller_bound())
        except (helpers.NotMovable, Unsupported) as error:
            raise _Broken(calls, "the reader's arguments cannot be moved out of %s(): %s"
                          % ("() into ".join(reversed(helpers.chain_names(helper))), error))
        created = self._check_loop_list(index, found, calls, joined)
        element = self._loop_element(found, calls)
        self._check_loop_locals(index, loop, found, calls)
        value = self._fresh_local(helper.value_name)
        read_stmt = next(stmt for stmt in loop.body.body if cstutil.statement_value(stmt) is call)
        renames = {queue: value}
        if helper.name in self.context.kept_helpers:  # kept for other callers: call its migrated copy
            renames[helper.name] = self.context.kept_helpers[helper.name]
        statements = (self.source_of(cstutil.rename(read_stmt, renames)),) + tuple(
            self.source_of(stmt) for stmt in found.record_stmts)
        tainted = {found.list_name} | (cstutil.name_uses(loop.body).stores - {found.list_name})
        return self._follow(producers[queue], (helper.reader_rule, helper.reader_call, moved, None), index, None,
                            value, tainted, [index], calls, removed=(created[0], index), helpers_used=(helper.name,),
                            join=(self.source_of(found.count), found.list_name, None), loop_element=element,
                            record_statements={index: statements})

    def _joined_calls(self, index: int, found) -> Tuple[cst.Call, ...]:
        """The batch_joins of the loop's list (`found.list_name`; one, or one per if/else arm): told
        the same reason."""
        joined = ()
        for later in range(index + 1, len(self.body)):
            if found.list_name in self.uses[later].loads:
                finder = _CallFinder(self.imports, JOINERS)
                cstutil.walk(self.body[later], finder)
                joined += tuple(finder.calls)
        return joined

    def _check_loop_list(self, index: int, found: "joins.ReaderLoop", calls, joined) -> List[int]:
        """The statements before the loop that make its list: one, `[]`; the list used by nothing
        but the loop's append and the batch_joins."""
        created = [i for i in range(index) if found.list_name in self.uses[i].stores]
        if not created or not joins.is_empty_list(
                (cstutil.single_assign(self.body[created[-1]]) or (None, None))[1]) or len(created) != 1:
            raise _Broken(calls, "the list `%s` the readers' records go into is not made empty once before the "
                          "loop" % found.list_name)
        if self.scope_loads[found.list_name] != 1 + len(joined):
            raise _Broken(calls, "the list `%s` is used beyond the loop's append and its batch_join"
                          % found.list_name)
        return created

    def _check_loop_locals(self, index: int, loop: cst.For, found: "joins.ReaderLoop", calls) -> None:
        """No name the loop binds is used after it (it held the last reader's tensors)."""
        stores = cstutil.name_uses(loop.body).stores - {found.list_name}
        live = set(stores)
        for later in range(index + 1, len(self.body)):
            escaped = self._escaping(later, live)
            if escaped:  # the last reader's tensors, which a dataset no longer has
                raise _Broken(calls, "`%s`, made in the reader loop, is used after it at line %d"
                              % (sorted(escaped)[0], self._line_of(later)))
            live -= self.uses[later].stores

    def _escaping(self, later: int, live: Set[str]) -> Set[str]:
        """The names of `live` that statement `later` reads with the values they had before it: a
        load that a binding inside the statement precedes (a loop's target, `x = ...` earlier in a
        nested block) reads the new value, and does not count."""
        loads = self.uses[later].loads
        return {name for name in live & set(loads)
                if loads.count(name) > _loads_after_rebinding(self.body[later], name)}

    def _loop_into_queue(self, index: int, found: "joins.ReaderLoop", producer, reader_found, up_to, calls,
                         queue) -> Match:
        """`for _ in range(n): reader; read; ...; ops.append(q.enqueue(...))` with `QueueRunner(q, ops)`:
        n readers on one file queue fill a hand-built queue (handbuilt._QueueReader._loop_put), so the
        files are read n at a time (interleave) and the per-record code of the loop runs before the
        queue's stage; the records come out of its dequeue."""
        key, value = self._read_targets(found.read_target, calls)
        stores = cstutil.name_uses(self.body[index].body).stores - {found.list_name}
        live = set(stores)
        for later in range(index + 1, len(self.body)):
            if later == queue.dequeue_index:
                live -= self.uses[later].stores
                continue
            escaped = self._escaping(later, live)
            if escaped:  # the last reader's tensors, which a dataset no longer has
                raise _Broken(calls + queue.calls, "`%s`, made in the reader loop, is used after it at line %d"
                              % (sorted(escaped)[0], self._line_of(later)))
            live -= self.uses[later].stores
        statements = tuple(self.source_of(stmt) for stmt in found.record_stmts)
        return self._follow(producer, reader_found + (up_to,), index, key, value,
                            set(stores), [index], calls, parallel_reads=self.source_of(found.count),
                            through=(queue,), record_statements={index: statements})

    def _loop_element(self, found: "joins.ReaderLoop", calls) -> Tuple[str, str]:
        """(kind, the map function's return) for what the reader loop appends: a literal list,
        tuple or dict, or a call of a function of the module that returns one."""
        element = found.element
        if isinstance(element, (cst.List, cst.Tuple, cst.Dict)):
            return self._element(element, calls, [], {})
        function = self.context.functions.get(element.func.value) if (
            isinstance(element, cst.Call) and isinstance(element.func, cst.Name)
            and element.func.value not in self.scope_stores) else None
        returned = _only_return(function) if function is not None else None
        code = self.source_of(element)
        if isinstance(returned, cst.Dict):
            return "dict", code
        if isinstance(returned, (cst.List, cst.Tuple)) and returned.elements and not any(
                isinstance(e, cst.StarredElement) for e in returned.elements):
            # batch_join gives the tensor itself for a list of one, as batch does.
            return ("single", "%s[0]" % code) if len(returned.elements) == 1 else ("tuple", "tuple(%s)" % code)
        raise _Broken(calls, "the loop appends `%s`, whose structure (a literal list, tuple or dict) qmigrate cannot "
                      "see" % code)

    def _slices_at(self, index: int, target: cst.BaseExpression, slicer) -> Match:
        """`a, b = slice_input_producer([x, y])` (or `rows = ...` used as `rows[0]`): the rows are the records."""
        calls = (slicer[1],)
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [_target_name(element.value) for element in target.elements]
            if None in names or any(isinstance(e, cst.StarredElement) for e in target.elements):
                raise _Broken(calls, "the result of slice_input_producer() is unpacked into something other "
                              "than plain names")
            params, value = tuple(names), ", ".join(names)
        elif isinstance(target, cst.Name):
            # A list of tensors indexed by the code: the map function gets them as one tuple.
            params, value = ("*" + target.value,), target.value
            names = [target.value]
        elif isinstance(target, cst.Attribute):
            raise _Broken(calls, "the result of slice_input_producer() is kept on `%s`, which qmigrate follows "
                          "only when one function nested in this method reads it, called once after it is bound, "
                          "and nothing else reads it" % _code(target))
        else:
            raise _Broken(calls, "the result of slice_input_producer() is not assigned to names")
        structures = {}
        try:
            rows = slicer[0].bind(slicer[1]).get("tensor_list")
        except Unsupported as why:  # an argument the producer does not take
            raise _Broken(calls, str(why))
        if isinstance(target, cst.Name) and isinstance(rows, (cst.List, cst.Tuple)):
            # The name holds the producer's whole output list: one tensor per sliced tensor.
            structures[target.value] = ("sliced", len(rows.elements))
        return self._follow((index,) + slicer, None, index, None, value, set(names), [], calls, removed=(index,),
                            params=params, structures=structures)

    def _rows_at(self, index: int, target: cst.BaseExpression, rows, producers) -> Match:
        """`x = producer(ids).dequeue()` (or `queue.dequeue()`), or `d['k'] = ...` into a dict made
        empty before: the producer's rows are the records (dequeued_rows)."""
        queue, rule, call = rows
        producer_index = producers[queue][0] if queue is not None else index
        producer = (producer_index, dequeued_rows.Rows(rule, self._tf_module()), call)
        calls = (call,)
        if rule is RangeInputProducer:
            # Batched step indices are a chain of rows; any other use of them stays with
            # range_producers, which rewrites the dequeue in place.
            if not isinstance(target, cst.Name):
                return None
            try:
                return self._follow(producer, None, index, None, target.value, {target.value}, [], calls,
                                    removed=(index,), params=(target.value,))
            except _Broken:
                return None
        if isinstance(target, cst.Name):
            return self._follow(producer, None, index, None, target.value, {target.value}, [], calls,
                                removed=(index,), params=(target.value,))
        item = dequeued_rows.dict_target(target)
        if item is None:
            raise _Broken(calls, "the dequeued row is assigned to `%s`, not to a name or to an item of a dict "
                          "made empty before it" % _code(target))
        binding = self._empty_dict_binding(index, item.name, calls)
        row = self.names.fresh(dequeued_rows.row_name(item.key))
        statements = ("%s = {}" % item.name, "%s[%s] = %s" % (item.name, item.key, row))
        return self._follow(producer, None, index, None, row, {item.name}, [index], calls,
                            removed=(binding,), params=(row,), structures={item.name: ("dict", 0)},
                            record_statements={index: statements})

    def _empty_dict_binding(self, index: int, name: str, calls) -> int:
        """The leaf that binds `name = {}`, the only binding of `name` in the block, before leaf `index`
        and read by nothing in between: the dict then holds nothing but the records stored into it."""
        binders = [i for i in range(len(self.body)) if name in self.uses[i].stores]
        if isinstance(self.scope, cst.FunctionDef) and name in _param_names(self.scope):
            binders.append(-1)
        if len(binders) != 1 or binders[0] >= index:
            raise _Broken(calls, "the dequeued row is stored into `%s`, which is not bound once, before it, to "
                          "an empty dict in this block" % name)
        binding = binders[0]
        assign = cstutil.single_assign(self.body[binding])
        if not (assign and isinstance(assign[0], cst.Name)
                and dequeued_rows.is_empty_dict(assign[1], self.context.module_names)):
            raise _Broken(calls, "the dequeued row is stored into `%s`, bound at line %d to something other than "
                          "an empty dict" % (name, self._line_of(binding)))
        used = [i for i in range(binding + 1, index) if name in self.uses[i].loads or name in self.uses[i].mutated]
        if used:
            raise _Broken(calls, "the dequeued row is stored into `%s`, which line %d uses before, so it holds more "
                          "than the records" % (name, self._line_of(used[0])))
        return binding

    def _attribute_helper(self, value) -> Optional[str]:
        """The key (`module.function`, its dotted text) of a reader helper of another module that
        `value` calls as an attribute of the name this module imported that module by
        (imported_helpers' attribute Imports), the name not bound in this scope; else None."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name)):
            return None
        key = dotted(value.func)
        # (the scope's names last: counting them costs a walk of the function)
        return key if key in self.context.reader_helpers and value.func.value.value not in self.scope_stores else None

    def _reader_helper(self, value) -> Optional[helpers.ReaderHelper]:
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            return self.context.reader_helpers.get(value.func.value)
        return None

    def _chosen_helpers(self, index: int, value):
        """(variable, the reader helpers it may hold, the helper each arm binds) for `read(queue)`
        at leaf `index` whose `read`
        is bound only by an earlier `if a: read = helper_a` / `elif b: read = helper_b` (/ `else:`)
        of this block, each arm binding it to a reader helper, and used only to be called.

        _Broken when a helper it may hold is also kept as it is for other callers (the variable
        would hand a record to the helper that takes a queue)."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        variable = value.func.value
        if variable in self.context.functions:
            return None
        for earlier in range(index - 1, -1, -1):
            if variable not in self.uses[earlier].stores:
                continue
            options = _helper_arms(self.body[earlier], variable, self.context.reader_helpers)
            if not options:
                return None
            counts = _NameCounts(variable)
            cstutil.walk(self.scope, counts)
            # Bound in these arms only, and otherwise only called (each call checked in run()).
            if counts.bound != len(options) or counts.names != counts.bound + counts.called:
                return None
            calls = tuple(option.reader_call for option in options)
            kept = [option.name for option in options if option.name in self.context.kept_helpers]
            if kept:
                raise _Broken(calls, "`%s` may hold %s(), which other calls in this file hand a queue: it stays "
                              "as it is for them" % (variable, kept[0]))
            distinct = {option.name: option for option in options}
            return variable, tuple(distinct.values()), tuple(option.name for option in options)
        return None

    def _refused_helper(self, value) -> Optional[str]:
        """Why the batching helper of another module `value` calls is not followed (handed_down), or None."""
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            return self.context.refused_helpers.get(value.func.value)
        return None

    def _batch_helper(self, value) -> Optional[helpers.BatchHelper]:
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            return self.context.batch_helpers.get(value.func.value)
        return None

    def _link_helper(self, producer, helper: helpers.ReaderHelper, index: int, call: cst.Call,
                     target: cst.BaseExpression, readers_count: Optional[cst.BaseExpression] = None,
                     name: Optional[str] = None, choice=None) -> Match:
        """`x = read_helper(queue)` (or `image, label = ...`): the helper's reader, read in the
        caller; what it returns is per-record.

        With `readers_count`, the statement was `x = [read_helper(queue) for _ in range(n)]`: n
        readers whose records meet in a batch_join; x becomes one record's tuple.
        """
        calls = (producer[2], helper.reader_call)
        names = towers.target_names(target)
        if not names or (readers_count is not None and not isinstance(target, cst.Name)):
            raise _Broken(calls, "the result of %s() is not assigned to plain names" % helper.function.name.value)
        try:
            # Through every helper the queue is passed on to, up to the one that makes the reader.
            moved = helpers.reader_arguments(helper, call, self.context.module_names, self._caller_bound())
        except (helpers.NotMovable, Unsupported) as error:
            raise _Broken(calls, "the reader's arguments cannot be moved out of %s(): %s"
                          % ("() into ".join(reversed(helpers.chain_names(helper))), error))
        value = self._fresh_local(helper.value_name)
        reader = (helper.reader_rule, helper.reader_call, moved, None)
        chosen, used = None, (name or helper.function.name.value,)
        if choice is not None:  # each helper the variable may hold: its reader, its arguments moved out
            variable, options, _ = choice
            calls = (producer[2],) + tuple(option.reader_call for option in options)
            readers = []
            for option in options:
                try:
                    arguments = helpers.reader_arguments(option, call, self.context.module_names,
                                                         self._caller_bound())
                except (helpers.NotMovable, Unsupported) as error:
                    raise _Broken(calls, "the reader's arguments cannot be moved out of %s(): %s"
                                  % (option.function.name.value, error))
                readers.append((option.name, (option.reader_rule, option.reader_call, arguments, None)))
            chosen, used = (variable, tuple(readers)), tuple(option.name for option in options)
        join = None
        if readers_count is not None and name is not None and name.startswith("*."):
            # A family's methods (dispatched_readers): each returns a literal of this kind.
            join = (self.source_of(readers_count), names[0], self.context.dispatched[helper.name][2])
        elif readers_count is not None:
            returned = _only_return(helper.function)
            if not isinstance(returned, (cst.Tuple, cst.List, cst.Dict)) or (
                    not isinstance(returned, cst.Dict) and not returned.elements):
                raise _Broken(calls, "%s() does not return a literal tuple, list or dict of tensors, which "
                              "batch_join needs from each reader" % helper.function.name.value)
            kind = "dict" if isinstance(returned, cst.Dict) else "single" if len(returned.elements) == 1 else "tuple"
            join = (self.source_of(readers_count), names[0], kind)
        return self._follow(producer, reader, index, None, value, set(names), [index], calls,
                            queue_name=producer_target(self.body[producer[0]]),
                            helpers_used=used, join=join, chosen=chosen)

    def _link_source(self, source: helpers.RecordSource, index: int, call: cst.Call,
                     target: cst.BaseExpression, key: Optional[str] = None,
                     method_call: Optional[cst.Call] = None) -> Match:
        """`x = source(files, ...)`: a helper that makes its own producer and reader and returns what
        it parsed from one record. Its producer and reader become the dataset's; the call, given
        the record, is the first per-record statement. A record-source method (`key`
        `Class.method`) is called as `method_call` (`self.method(...)`), `call` being that call
        written with the object first."""
        calls = (source.producer_call, source.reader_call)
        names = towers.target_names(target)
        if not names:
            raise _Broken(calls, "the result of %s() is not assigned to plain names" % source.name)
        try:
            module_names = frozenset(source.foreign_names) if source.foreign else self.context.module_names
            if source.held is not None and method_call is not None:
                # The producer stays in __init__ as the file names' dataset; the reader's arguments
                # read only module-level names (held_sources.find).
                self._check_one_held_caller(source, calls + self._chain_calls(index, (None, ""), {}, {}))
                produced = held_sources.caller_bound(source, method_call.func.value)
                read = source.reader_rule.bind(source.reader_call)
            elif source.held is not None:
                raise Unsupported("it is called without its object")
            else:
                produced, read = helpers.source_arguments(source, call, module_names, self._caller_bound())
        except (helpers.NotMovable, Unsupported) as error:
            raise _Broken(calls, "the producer's and reader's arguments cannot be moved out of %s(): %s"
                          % (source.name, error))
        value = self._fresh_local(source.value_name)
        try:
            if method_call is not None:
                new_call = helpers.source_call(source, method_call, value, method_call.func.attr.value,
                                               on_object=method_call.func.value,
                                               static=key in self.context.static_methods)
            else:
                new_call = helpers.source_call(source, call, value, self.context.kept_helpers.get(source.name,
                                                                                                 source.name))
        except helpers.NotMovable as error:
            raise _Broken(calls, "its call of %s() cannot be rewritten: %s" % (source.name, error))
        producer = (index, source.producer_rule, source.producer_call)
        match = self._follow(producer, (source.reader_rule, source.reader_call, read, None), index, None, value,
                             set(names), [index], calls, helpers_used=(key or source.name,), bound_producer=produced,
                             record_call=new_call)
        if source.held is not None:
            queue, reader = source.held
            held = held_sources.held_source(self.source_of(produced["string_tensor"]))
            match.pipeline = dataclasses.replace(match.pipeline, source=held)
            try:
                init_producer = source.producer_rule.model(source.producer_rule.bind(source.producer_call),
                                                           self.source_of, self.imports.resolve)
            except Unsupported as error:
                raise _Broken(calls, str(error))
            match.held_init = (queue, init_producer)
            match.object_names = (self.scope.name.value, queue.attr, reader.attr)
            match.remote_bindings = (held_sources.with_replacement(reader, ()),)
        return match

    def _check_one_held_caller(self, source: helpers.RecordSource, calls) -> None:
        """A method of the source's class that batches its records runs once per object: called
        again, its batches shared the one queue's records, where two datasets over the held file
        names would each read them all. Neither it nor the held attributes may be named in other
        modules of the run (mentioned_attributes), nor it in a loop of this file."""
        attrs = self.context.class_attrs(self.scope)
        if attrs is None or attrs.cls is not self.context.method_classes.get(id(source.function)):
            return
        here = self.scope.name.value
        if here in self.context.mentioned_attributes:
            raise _Broken(calls, "its reader and queue are made once for the object in __init__, and %s: a "
                          "second call of %s() on one object shared the queue's records, where two datasets "
                          "over the held file names would each read them all"
                          % (self.context.mentioned_attributes[here], here))
        for binding in source.held:
            if binding.attr in self.context.mentioned_attributes:
                raise _Broken(calls, "its reader and queue are kept on the object, and %s, which the migration "
                              "removes or makes a dataset of file names" % self.context.mentioned_attributes[binding.attr])
        self._check_not_repeated(attrs, here, calls, "its reader and queue are made once for the object in "
                                                     "__init__")
        if attrs.uses_of(here) > 1:
            raise _Broken(calls, "its reader and queue are made once for the object in __init__, and this file "
                          "calls %s() in %d places, which would share their records" % (here, attrs.uses_of(here)))

    def _check_not_repeated(self, attrs, here: str, calls, what: str) -> None:
        """The file names the method `here` (which batches records the object's reader or queue
        gives) in no loop, lambda or comprehension: run again on one object, its calls shared the
        records, where each dataset would read them all."""
        node = cstutil.attribute_repeated(self.context.module, here) if self.context.module is not None else None
        if node is not None:
            raise _Broken(calls, "%s, and this file calls %s() in a loop, lambda or comprehension (line %d), whose "
                          "calls would share their records" % (what, here, attrs.line_of(node)))

    def _provider_read(self, index: int) -> Match:
        """A statement that gets items of one provider (`[a, b] = provider.get([...])`,
        `a = provider.get([...])[0]`, or an if/else whose arms do): the whole statement, each get
        decoding, is the first per-record statement (an if's test is Python's, made once when the
        map function is traced)."""
        stmt = self.body[index]
        gets = slim_provider.gets_in(stmt, self.providers)
        names = sorted({name for name, _ in gets})
        calls = tuple(self.providers[name][2] for name in names)
        if len(names) != 1:
            raise _Broken(calls, "the statement at line %d reads several providers" % self._line_of(index))
        others = [c for c in cstutil.calls_of(stmt) if rule_for(self.imports.resolve(c.func)) is not None]
        if others or self.uses[index].control:  # all of the statement moves into the map function
            raise _Broken(calls + tuple(others), "the statement at line %d that reads the provider also %s" % (
                self._line_of(index), "calls queue APIs" if others else
                "contains `%s`" % sorted(self.uses[index].control)[0]))
        if not self.uses[index].stores:
            raise _Broken(calls, "the items the provider gets at line %d are not assigned to names"
                          % self._line_of(index))
        return self._link_provider(names[0], index, set(self.uses[index].stores), [call for _, call in gets])

    def _seen_reader_kwargs(self, bound: dict) -> dict:
        """A slim call's arguments with `reader_kwargs=name` replaced by the dict literal `name` is
        bound to, when slim_provider.literal_dict proves it (the rule reads literals only)."""
        node = bound.get("reader_kwargs")
        if isinstance(node, cst.Name):
            literal = slim_provider.literal_dict(node.value, self.scope, self.scope_loads[node.value])
            if literal is not None:
                return dict(bound, reader_kwargs=literal)
        return bound

    def _link_provider(self, name: str, index: int, tainted: Set[str], get_calls: List[cst.Call]) -> Match:
        """`x = provider.get(items)` (or an if/else of such gets): slim's provider is the file source
        and the reader, and the gets, decoding with the dataset's own decoder, the first per-record
        statement."""
        self.providers_read.add(name)
        provider_index, rule, call = provider = self.providers[name]
        if rule is provider_factories.FactoryProvider:
            return self._link_factory(name, index, tainted, get_calls)
        calls = (call,)
        try:
            bound = self._seen_reader_kwargs(rule.bind(call))
        except Unsupported as error:
            raise _Broken(calls, str(error))
        if bound.get("dataset") is None:
            raise _Broken(calls, "it has no dataset argument")
        value = self._fresh_local("serialized")
        self.provider_gets[name] = len(get_calls)
        match = self._follow(provider, (ReaderModel(rule), call, bound, None), index, None, value, tainted, [index],
                             calls, bound_producer=bound)
        try:  # checked once the chain is known, so that its batching is told the reason too
            for get_call in get_calls:
                slim_provider.get_items(get_call, bound.get("record_key"))
            slim_provider.DatasetProof(self.scope, self.imports, self.context.functions, self.context.line_of,
                                       self.context.module, self.context.load_module).check(
                bound["dataset"], in_map=not match.pipeline.unbatched)
        except slim_provider.Unseen as error:
            # Unsafe: the rewrite checks the reader class when the pipeline is built, not the decoder.
            if not self.context.unsafe:
                raise _Broken(match.calls, "%s; `--unsafe` migrates it with a check of its reader class"
                              % error, finding=(UnseenSlimDataset, call))
            source = dataclasses.replace(match.pipeline.source, reader_check=self.source_of(bound["dataset"]))
            match.pipeline = dataclasses.replace(match.pipeline, source=source)
            match.finding = (UnseenSlimDataset, call)
        except Unsupported as error:
            raise _Broken(match.calls, str(error))
        match.record_statements[index] = (
            slim_provider.decode_statement(self.body[index], get_calls, bound["dataset"], value),)
        return self._name_files(match)

    def _factory_key(self, value) -> Optional[Tuple[str, str, str]]:
        """(function, object, method) for `obj.method()` (no arguments) in a function where the
        run proved `obj` holds an object whose `method` is a provider factory (provider_factories)."""
        if not (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name) and isinstance(self.scope, cst.FunctionDef)):
            return None
        key = (self.scope.name.value, value.func.value.value, value.func.attr.value)
        if key not in self.context.provider_factories:
            return None
        # The object is made here, once, from the class the run proved the factory of.
        made = slim_provider.single_value(self.scope, key[1])
        made_from = self.imports.resolve(made.func) if isinstance(made, cst.Call) else None
        return key if made_from == self.context.provider_factories[key][1] else None

    def _link_factory(self, name: str, index: int, tainted: Set[str], get_calls: List[cst.Call]) -> Match:
        """`provider = obj.method()`, a provider factory of another module, read by `get()` and
        batched here: the factory's sibling gives the records its provider read (shuffled and
        repeated as it did) and its slim Dataset, bound where the factory was called; the gets
        decode with that Dataset's decoder in the map function, as for a provider made here."""
        provider_index, _, call = provider = self.providers[name]
        key = self._factory_key(call)
        calls = (call,)
        value = self._fresh_local("serialized")
        self.provider_gets[name] = len(get_calls)
        match = self._follow(provider, (provider_factories.FactoryRecords, call, {}, None), index, None, value,
                             tainted, [index], calls, bound_producer={})
        if match.pipeline.unbatched:
            raise _Broken(match.calls, "its records are not batched in the block that calls the factory %s.%s()"
                          % key[1:])
        try:
            for get_call in get_calls:
                slim_provider.get_items(get_call, None)
        except Unsupported as error:
            raise _Broken(match.calls, str(error))
        records, dataset = self.names.fresh("records"), self.names.fresh("slim_dataset")
        match.record_statements[index] = (
            slim_provider.decode_statement(self.body[index], get_calls, cst.Name(dataset), value),)
        match.pipeline = dataclasses.replace(match.pipeline,
                                             source=dataclasses.replace(match.pipeline.source, files=records))
        match.test_binding = (provider_index, "%s, %s = %s.%s()" % (
            records, dataset, key[1], self.context.provider_factories[key][0]))
        self.context.factory_calls.append((key, call))
        return match

    def _slim_read_at(self, index: int, target: cst.BaseExpression, found) -> Match:
        """`key, value = parallel_read(files, tf.TFRecordReader, ...)` (or single_pass_read): a
        file-name producer and a reader in one call."""
        rule, call = found
        calls = (call,)
        key, value = self._read_targets(target, calls)
        try:
            bound = self._seen_reader_kwargs(rule.bind(call))
        except Unsupported as error:
            raise _Broken(calls, str(error))
        tainted = {value} | ({key} if key else set())
        match = self._follow((index, rule, call), (ReaderModel(rule), call, bound, None), index, key, value, tainted,
                             [], calls, removed=(index,), bound_producer=bound)
        return self._name_files(match)

    def _name_files(self, match: Match) -> Match:
        """A slim source's files get a name of their own: slim listed them once, in Python."""
        source = dataclasses.replace(match.pipeline.source, files=self.names.fresh("data_files"))
        match.pipeline = dataclasses.replace(match.pipeline, source=source)
        return match

    def _unread_provider(self, name: str, index: int) -> str:
        """Why a provider of the block is not followed: where it is used instead of one get()."""
        later = [i for i in range(index + 1, len(self.body)) if name in self.uses[i].loads]
        if not later:
            return slim_provider.unread_reason(name)
        stmt, line = self.body[later[0]], self._line_of(later[0])
        if isinstance(stmt, cst.If):
            return ("the provider `%s` is read in the arms of an if/else (line %d): each arm would need its own "
                    "decoding of one dataset, which qmigrate does not write yet" % (name, line))
        return "%s; first used at line %d" % (slim_provider.unread_reason(name), line)

    def _caller_bound(self) -> frozenset:
        """Names the calling function binds (its locals and parameters): a module-level name a
        helper reads means something else there."""
        if not isinstance(self.scope, cst.FunctionDef):
            return frozenset()
        return frozenset(self.scope_stores | _param_names(self.scope))

    def _link(self, producer, reader, read_index: int, read_target: cst.BaseExpression,
              up_to: Optional[cst.BaseExpression]) -> Match:
        """`key, value = reader.read(queue)` (or `read_up_to(queue, n)`) in the block itself."""
        reader_index, reader_rule, reader_call = reader
        calls = (producer[2], reader_call)
        key, value = self._read_targets(read_target, calls)
        tainted = {value} | ({key} if key else set())
        removed = (read_index,) if reader_index is None else (reader_index, read_index)
        return self._follow(producer, (reader_rule, reader_call, None, up_to), read_index, key, value, tainted, [],
                            calls, removed=removed, reader_index=reader_index)

    def _follow(self, producer, reader, read_index, key, value, tainted, record_indices, calls,
                removed=(), reader_index=None, queue_name=None, helpers_used=(), params=None, join=None,
                structures=None, bound_producer=None, record_call=None, on_self=frozenset(), loop_element=None,
                record_statements=None, chosen=None, parallel_reads=None, through=(), group=None) -> Match:
        """From the read on: the per-record statements, the batching, the checks, the model.

        `reader` is None for a slice producer, whose outputs are the records (`params` names them).
        `join` is (readers, the list's name, "tuple" | "dict") when several readers feed a batch_join.
        `structures` maps a record name the chain itself bound to what it holds (see `_element`).
        `bound_producer`: the producer's arguments moved out of a record-source helper.
        `on_self`: which of "reader" and "queue" are attributes of the object, whose uses class_attrs proved.
        `loop_element`: (kind, returns) of a reader loop's appended element (joins.py), with
        `record_statements` its per-record statements, written at the loop's leaf.
        `chosen`: (variable, ((helper name, reader), ...)) when the reader helper is chosen at run time.
        `parallel_reads`: the number of readers of a reader loop filling the hand-built queue in `through`.
        `group`: (n, the list's name, the reader's name) for one reader read n times in a loop into a
        list that a batcher batches with enqueue_many=True (group_reads.py); `loop_element` is then
        the map function's return for one record.
        """
        producer_index, producer_rule, producer_call = producer
        self.captured_reads = ()
        self.map_copies = ()
        self.captured_params = ()
        self.drawn_params = ()
        self.unseen_calls = ()
        self.lost_summaries = ()
        self.record_draws = False
        record_indices = list(record_indices)
        batch = in_loop = queue_batch = None
        # hand-built queues the records go through; record leaves written anew
        through, rewritten = list(through), dict(record_statements or {})
        kept = {}  # record leaves that also stay in place (Match.kept_statements)
        arms = ()  # the other arms' (batching rule and call, call) when each branch batches
        arm_records = None  # their per-record code (branch_records.ArmRecords)
        fallthrough = False  # their `if`/`elif` has no `else`: a path batches nothing
        records_arm = None  # or this arm of theirs batches nothing (Match.records_arm)
        batch_later = ()  # the statements after the batching in the arm that batches (Match.batch_later)
        arm_later = ()  # with every arm batching, how many statements follow each one's (Match.arm_later)
        batch_unpacking = ()  # with them: Match.records_unpacking
        own_records = None  # or that arm takes the names it reads (_own_records_arm)
        record_join = False  # `join` is a loop of the per-record code after the read (_record_loop)
        thread_var = None  # its variable, when its copies read it (joins.RecordLoop.thread_var)
        unbatched = UNBATCHED_IN_BLOCK
        for index in range(read_index + 1, len(self.body)):
            uses = self.uses[index]
            reads_record = bool(tainted & set(uses.loads))
            if reads_record and index in self.queues.refused:
                refused = self.queues.refused[index]
                raise _Broken(calls + refused.calls + self._later_batchings(index, tainted | uses.stores),
                              refused.reason)
            if reads_record and self._queue_dtypes(index, tainted, calls):
                continue  # `dtypes=(image.dtype, ...)`: the constructor goes with its queue
            if reads_record and index in self.queues.accepted:  # the records go into a hand-built queue
                queue = self.queues.accepted[index]
                if queue.reads & tainted:
                    given = sorted(queue.reads & tainted)[0]
                    raise _Broken(calls + queue.calls, (
                        "%s() is given `%s`, a per-record tensor, for its queue's capacity, shuffle or threads"
                        % (queue.name, given) if queue.helper else
                        "`%s`, which the per-record code binds, sets the capacity, shuffle or threads of `%s`; the "
                        "dataset reads it where it is built, outside that code" % (given, queue.name)))
                through.append(queue)
                if queue.dequeue_index != index:  # a queue helper's call is its enqueue and its dequeue
                    continue
            plumbing = next((queue for queue in through if index in queue.plumbing), None)
            if plumbing is not None:  # its runner (or registration) goes with the queue
                if reads_record:
                    raise _Broken(calls + plumbing.calls, "the runner of %s reads `%s`, which the per-record code "
                                  "binds" % (plumbing.name, sorted(tainted & set(uses.loads))[0]))
                continue
            queue = self.queues.by_dequeue(index)
            if queue is not None and queue in through:
                if queue.batching is not None:  # dequeue_many / dequeue_up_to: the batching
                    batch, queue_batch = (index, None, None, None), queue
                    break
                if queue.record_statements is None:
                    raise _Broken(calls + queue.calls, queue.records_refused)
                if queue.stage is not None and queue.condition is None and self._ends_chain(index):
                    # dequeue() and no batching after it: the dataset gives the records one at a time
                    # (not a queue helper's call under `if test:`, whose records the if's other
                    # path gives unmixed)
                    if queue.stage.shapes:
                        raise _Broken(calls + queue.calls, _CHECKED_SHAPES % queue.name)
                    batch = (index, None, None, None)
                    queue_batch = dataclasses.replace(queue, batching=dataclasses.replace(queue.stage, single=True),
                                                      stage=None)
                    through[through.index(queue)] = queue_batch
                    break
                record_indices.append(index)  # dequeue(): the records again, one at a time
                rewritten[index] = queue.record_statements
                if queue.structure is not None:  # the list the dequeue binds, which the statements do not show
                    structures = dict(structures or {}, **{"dequeued " + queue.structure[0]: (index,) + queue.structure})
                if queue.condition is not None:  # `if test:` around the helper's call stays, without the call
                    if queue.kept is not None:
                        self._check_kept(queue, tainted, calls + self._later_batchings(index, tainted | uses.stores))
                        kept[index] = queue.kept
                    tainted |= queue.call_stores
                    continue
                tainted |= uses.stores
                continue
            value_expr = cstutil.statement_value(self.body[index])
            found = _call_with_rule(value_expr, self.imports, BATCHERS + JOINERS + FILTERERS + BUCKETERS)
            helper = self._batch_helper(value_expr)
            refused = self._refused_helper(value_expr) if reads_record else None
            if refused:
                raise _Broken(calls, refused)
            if (found or helper) and reads_record:
                batch = (index, found, helper, value_expr)
                break
            if reads_record and join is None and isinstance(self.body[index], cst.For):
                loop = self._record_loop(index, tainted, calls)
                if loop is not None:  # n copies of the per-record code for a `*_join`: one map, n at a time
                    created, element = loop
                    removed = tuple(removed) + (created,)
                    record_indices.append(index)
                    rewritten[index] = tuple(self.source_of(stmt) for stmt in element[0].record_stmts)
                    tainted |= uses.stores | {element[0].list_name}
                    join = (self.source_of(element[0].count), element[0].list_name, None)
                    loop_element, record_join = element[1], True
                    thread_var = element[0].thread_var
                    continue
            branches = self._batch_in_branches(index, tainted, join is not None) if reads_record else None
            if branches is not None:
                found, arms = branches[0], branches[1:]
                arm_records, fallthrough = self.branch_records, self.branch_fallthrough
                records_arm, batch_later, arm_later = self.records_arm, self.batch_later, self.arm_later
                batch_unpacking, own_records = self.batch_unpacking, self.own_records
                batch = (index, found, None, found[1])
                break
            tower = None
            if reads_record:
                # What the dataset is built from, which the loop must not rebind before its batching.
                built_from = set(tainted)
                for chained in [producer_index, reader_index, read_index] + list(record_indices) + list(removed):
                    if chained is not None:
                        built_from |= set(self.uses[chained].loads)
                tower = self._batch_in_tower_loop(index, tainted, built_from)
            if isinstance(tower, str):  # a loop that batches the records, in a way not proven
                finder = _CallFinder(self.imports, BATCHERS + BUCKETERS)
                cstutil.walk(self.body[index], finder)
                raise _Broken(calls + tuple(finder.calls), tower)
            if tower is not None:
                loop, inner, loop_helper = tower
                inner_value = cstutil.statement_value(inner.original)
                batch = (index, _call_with_rule(inner_value, self.imports, BATCHERS), loop_helper, inner_value)
                in_loop = loop
                break
            if reads_record:
                finder = _CallFinder(self.imports, BATCHERS + BUCKETERS)
                cstutil.walk(self.body[index], finder)
                if finder.found:  # the batching calls there are told the same reason
                    raise _Broken(calls + tuple(finder.calls), self._nested_batch_reason(index))
                self._check_no_chain_inside(index, calls, tainted | uses.stores)
                if uses.control:
                    # The record leaves the block (a `return`): unbatched, get_next() stands for the read.
                    unbatched = self._control_reason(index, uses)
                    break
                record_indices.append(index)
                tainted |= uses.stores
            elif tainted & uses.stores:
                raise _Broken(calls, "a statement rebinds `%s`, a per-record tensor, without using the record"
                              % sorted(tainted & uses.stores)[0])
        if batch is None:
            # slim's parallel_read / single_pass_read produce and read in one call (`bound_producer`
            # is its own arguments): its records may leave unbatched as a plain reader's do.
            slim_read = bound_producer is not None and record_call is None and (
                producer[0] == read_index or producer[1] in SLIM_PROVIDERS)
            plain = not (through or rewritten or join or queue_name or record_call or (
                bound_producer and not slim_read) or on_self or loop_element or params)
            # A producer's rows taken one at a time, no reader between (`x, y = slice_input_producer(...)`,
            # `path = queue.dequeue()`): get_next() gives the rows as the dequeue did.
            rows = (reader is None and params is not None and not any(p.startswith("*") for p in params)
                    and not (through or rewritten or join or queue_name or record_call or bound_producer
                             or on_self or loop_element)
                    and getattr(producer_rule, "rule", None) is not RangeInputProducer)
            # A reader helper given the queue (`x = read(queue)`) whose records are used one per step
            # by the rest of its function (or module), which batches and queues nothing: get_next()
            # gives it the record. Not where they leave the block (returned, or read by the code
            # around an if/else or loop), where queue code that stays may batch them.
            helper_read = (queue_name is not None and len(helpers_used) == 1 and reader is not None
                           and unbatched == UNBATCHED_IN_BLOCK and self._straight_body
                           and self._ends_chain(read_index) and not (
                               through or rewritten or join or record_call or bound_producer or on_self
                               or loop_element or params or chosen))
            if not rows and not helper_read and (not plain or reader is None):
                raise _Broken(calls, unbatched)
            return self._unbatched(producer, reader, read_index, key, value, calls, removed, reader_index, unbatched,
                                   record_indices, bound_producer if slim_read else None,
                                   (queue_name, tuple(helpers_used)) if helper_read else None)
        batch_index, found, batch_helper_def, batch_call = batch
        for queue in through:
            calls += queue.calls
            helpers_used = tuple(helpers_used) + ((queue.helper,) if queue.helper else ())
            removed = tuple(removed) + queue.plumbing + (
                (queue.enqueue_index,) if queue.enqueue_index != queue.dequeue_index else ())
        prefetched = self.queues.of_batches(batch_index, self.body, self.scope_loads) if found and not in_loop else None
        if prefetched is not None:  # a FIFOQueue of whole batches: the batches are read from its dequeue
            calls += prefetched.calls
            removed = tuple(removed) + prefetched.plumbing + (prefetched.enqueue_index, batch_index)
            batch_index = prefetched.dequeue_index
        chain = (producer_index, read_index, batch_index) + tuple(removed)
        branch_batchings = ()
        try:
            if found and (found[0] in JOINERS) != (join is not None):
                raise _Broken(calls + (batch_call,), "batch_join needs one list of reader-helper calls "
                              "(`[read(queue) for _ in range(n)]`) as its tensors_list, and only batch_join "
                              "takes such a list")
            if queue_batch is not None:
                element_kind, returns = self._element(queue_batch.tensors, calls, record_indices, structures or {})
                batching, helper_batch = queue_batch.batching, None
            elif found:
                batch_rule = found[0]
                calls += (batch_call,) + tuple(call for (_, call) in arms)
                bound = batch_rule.bind(batch_call)
                if join is not None:
                    element_kind, returns = self._joined_element(bound.get("tensors_list"), join, calls,
                                                                 helpers.literal_truth(bound.get("enqueue_many")) is True)
                    if loop_element is not None:
                        element_kind, returns = loop_element
                elif group is not None:
                    element_kind, returns = loop_element
                else:
                    element_kind, returns = self._element(bound.get("tensors"), calls, record_indices,
                                                          structures or {})
                batching = batch_rule.model(bound, self.source_of, self.imports.resolve)
                if arms:
                    batching = self._threads_before_branch(self.body[batch_index], batch_call, batching, calls)
                helper_batch = None
                branch_batchings = tuple(self._arm_batching(arm, element_kind, returns, batching, calls,
                                                            record_indices, structures or {}, join, loop_element)
                                         for arm in arms)
            else:
                batching, element_kind, returns, helper_batch, helper_calls = self._helper_batching(
                    batch_helper_def, batch_call, calls)
                calls += helper_calls
                helpers_used += (batch_helper_def.function.name.value,)
            if group is not None:
                batching = self._grouped_batching(group, found, bound if found else {}, batching, calls,
                                                  arms or in_loop or through or prefetched or not found)
            records_batching = Batching("1", single=True) if fallthrough and through else None
            raw_shuffle = None  # a RandomShuffleQueue of the records as read: (buffer, test, seed)
            for queue in through:
                stage = queue.stage
                if (raw_shuffle is None and stage is not None and stage.shuffle_buffer and not batching.shuffle_buffer
                        and reader is not None and queue.helper is None and not arms and records_batching is None
                        and group is None and in_loop is None
                        and all(rewritten.get(i) == () for i in record_indices if i < queue.dequeue_index)):
                    # It held the records the reader read, before any per-record code (Inception's
                    # queue of serialized examples): they are shuffled before the map, as there,
                    # and the buffer holds what the queue held, not the decoded records.
                    raw_shuffle = (stage.shuffle_buffer, stage.shuffle_condition or True, stage.seed)
                    stage = dataclasses.replace(stage, shuffle_buffer=None, shuffle_condition=None, seed=None)
                try:
                    batching = handbuilt.merge(stage, batching)
                    # every arm batches the records the queues gave, shuffled as they were
                    branch_batchings = tuple(handbuilt.merge(queue.stage, arm) for arm in branch_batchings)
                    if records_batching is not None:
                        records_batching = handbuilt.merge(queue.stage, records_batching)
                except ValueError as error:
                    raise _Broken(calls, str(error))
            # The element as the per-record code left it, the same before and after the map: not
            # one the batching unbatches, filters, buckets, or finishes in its if/else arms.
            if not (arms or in_loop or through or join is not None or group is not None):
                # A random draw the per-record code reads moves into the map function: the
                # queue ran it once per record (record_draws).
                draws = record_draws.pulled(self, record_indices, kept, chain, batch_index, read_index, returns,
                                            _STATEFUL_OPS, _PYTHON_VALUED, _defers)
                for index in draws:
                    tainted |= self.uses[index].stores
                record_indices = sorted(set(record_indices) | set(draws))
            returned = returns if (returns.isidentifier() and returns in tainted and element_kind in ("dict", "single")
                                   and in_loop is None and not through and join is None and arm_records is None
                                   and group is None and not batching.enqueue_many and not batching.keep_input
                                   and batching.bucket_boundaries is None) else None
            returning = self._check_isolated(producer_index, reader_index, read_index, record_indices, batch_index,
                                             tainted, calls, chain, on_self, kept=frozenset(kept), returned=returned,
                                             map_returns=returns)
            if bound_producer is None:
                bound_producer = producer_rule.bind(producer_call)
            matched = self._file_name_match(bound_producer, producer_index, batch_index, calls)
            if matched is not None:  # match_filenames_once, in the call or one line above
                call, index = matched
                bound_producer = dict(bound_producer, string_tensor=call)
                calls += (call,)
                removed = tuple(removed) + ((index,) if index is not None else ())
            file_source = producer_rule.model(bound_producer, self.source_of, self.imports.resolve)
            self._check_attribute_condition(bound_producer.get("shuffle"), producer_index, batch_index,
                                            set(chain) | set(record_indices), calls)
            file_source, test_binding = self._bind_test(file_source, producer_index, producer_call, read_index, calls)
            record_reader = self._reader_model(reader)
            reader_choice = None
            if chosen is not None:
                reader_choice = (chosen[0], tuple((helper_name, self._reader_model(option))
                                                  for helper_name, option in chosen[1]))
        except Unsupported as unsupported:
            raise _Broken(calls, str(unsupported))
        if fallthrough and batching.keep_input:
            raise _Broken(calls, "the batching is inside an `if` without a plain `else`, so some path batches "
                          "nothing, and it batches only the records its keep_input allows")
        if record_join:  # the join's n threads ran the loop's per-record code, each on its own record
            batching = dataclasses.replace(batching, num_threads=join[0])
            if parallel_reads is not None:
                record_reader = dataclasses.replace(record_reader, parallel_reads=parallel_reads)
        elif join is not None:
            # The n readers' enqueue ops also ran the per-record code n at a time.
            if record_reader is not None:  # (n dequeues of rows: no files to read n at a time)
                record_reader = dataclasses.replace(record_reader, parallel_reads=join[0])
            batching = dataclasses.replace(batching, num_threads=batching.num_threads or join[0])
        elif parallel_reads is not None:  # n readers filled a hand-built queue: files read n at a time
            record_reader = dataclasses.replace(record_reader, parallel_reads=parallel_reads)
        if group is not None:  # n records in a row a run of the enqueue op: the short last group is lost
            record_reader = dataclasses.replace(record_reader, read_groups=group[0])
        if raw_shuffle is not None:
            record_reader = dataclasses.replace(record_reader, record_shuffle=raw_shuffle[0],
                                                record_shuffle_test=raw_shuffle[1], record_shuffle_seed=raw_shuffle[2])
        if record_reader and record_reader.read_up_to and not batching.enqueue_many:
            raise _Broken(calls, "it reads chunks with read_up_to() but batches them without enqueue_many=True")
        if key and record_reader.kind == "tfrecord":
            # The key is rebuilt from each record's offset in its file (synth.keyed_records).
            record_reader = dataclasses.replace(record_reader, keyed_records=self.names.fresh("keyed_records"))
        elif key and record_reader.kind != "whole_file":
            raise _Broken(calls, "the per-record code uses the reader's key `%s`, which the %s dataset does not give"
                          % (key, record_reader.kind))

        static_shapes = self._static_shapes(batching, returns, element_kind, calls)
        if batching.bucket_boundaries is not None:  # the record's length goes with it, to be batched too
            element_kind, returns = bucketing.element(self.source_of(bound["input_length"]), element_kind, returns)
        if batching.keep_input:
            # maybe_batch's keep_input is computed per record: the map function returns it beside
            # the element (RecordFunction.keep_input), a filter keeps the records it allows.
            if element_kind in ("tuple", "bucket", "bucket_list"):
                returns = "(%s)" % returns
        records_names, records_condition = (), None
        if own_records is not None:  # the map function returns, per arm, what the arm takes
            records_names, arm_statements, moved = own_records
            if static_shapes or batching.keep_input:
                raise _Broken(calls, "the batching is inside an if/else (line %d) whose arm that batches "
                              "nothing takes other tensors than the batching, which sets their shapes or "
                              "filters them" % self._line_of(batch_index))
            records_condition = self._partial_records(records_names, record_indices, batch_index, calls)
            taken = ", ".join(records_names)
            if records_condition is not None:  # the test says which of the two the element is
                test, when_true, partial = records_condition
                fewer = [name for name in records_names if name not in partial]
                fewer = fewer[0] if len(fewer) == 1 else "(%s)" % ", ".join(fewer)  # `a if t else b, c` is a pair
                whole, part = ("(%s)" % taken, fewer) if when_true else (fewer, "(%s)" % taken)
                taken = "%s if %s else %s" % (whole, test, part)
            if arm_statements or taken != returns:
                arm_records = branch_records.ArmRecords(branch_records.records_arm_if(
                    self.body[batch_index], records_arm, arm_statements, returns, taken), moved)
            returns = taken
        # `key, value` batched as read: the keyed records are the elements already, no map needed.
        keyed_as_read = (record_reader is not None and record_reader.keyed_records and element_kind == "tuple"
                         and returns == "%s, %s" % (key, value) and not record_indices and not static_shapes
                         and not batching.keep_input)
        if (record_indices or returns != value or static_shapes or batching.keep_input or arm_records) \
                and not keyed_as_read:
            params = params or ((key, value) if key else (value,))
            keep = bound.get("keep_input") if found and batching.keep_input else None
            made_by_tf = isinstance(keep, cst.Call) and (self.imports.resolve(keep.func) or "").startswith(
                "tensorflow.")  # a TensorFlow op gives a tensor already
            if thread_var is not None:  # the copy's number, last (Pipeline.thread_copies)
                params = tuple(params) + (thread_var,)
            function = RecordFunction(self.names.fresh("parse_record"), params, returns, static_shapes,
                                      keep_input=batching.keep_input, keep_is_tensor=made_by_tf)
        else:
            function = None
        file_name = self._fresh_local("filename", file_source, record_reader) if record_reader else "filename"
        dense_arity = None
        if (found and join is None and element_kind != "dict" and not self.context.may_be_sparse
                and isinstance(bound.get("tensors"), (cst.List, cst.Tuple)) and not arms):
            dense_arity = len(bound["tensors"].elements)
        pipeline = Pipeline(file_source, record_reader, function, batching,
                            dataset_name=self.names.fresh("dataset"), file_name_param=file_name,
                            dense_arity=dense_arity,
                            prefetch=prefetched.capacity if prefetched else "1")
        if in_loop is not None:
            pipeline = dataclasses.replace(pipeline, sharding=Sharding(in_loop.num_towers, in_loop.loop_var))
        if fallthrough:
            pipeline = dataclasses.replace(pipeline, unbatch_in_tail=True)
        if reader_choice is not None:
            pipeline = dataclasses.replace(pipeline, reader_choice=reader_choice)
        if returning is not None:
            pipeline = dataclasses.replace(pipeline, returned_record=returned)
        if thread_var is not None:
            pipeline = dataclasses.replace(pipeline, thread_copies=(
                join[0], thread_var, self.names.fresh(function.name + "_of_thread")))
        # A slice producer is its own read: listed once, or its comments would move twice.
        return Match(tuple(dict.fromkeys((producer_index,) + tuple(removed))), read_index, tuple(record_indices), batch_index,
                     pipeline, element_kind, calls, queue_name=queue_name, batch_helper=helper_batch,
                     helpers_used=helpers_used, tower_loop=in_loop, one_of_repeated=join is not None and not record_join,
                     record_statements=rewritten, kept_statements=kept,
                     branch_batchings=branch_batchings if found else (),
                     record_call=record_call, arm_records=arm_records, branch_fallthrough=fallthrough,
                     records_arm=records_arm, records_batching=records_batching,
                     batch_later=len(batch_later), records_unpacking=batch_unpacking, records_names=records_names,
                     records_condition=records_condition,
                     arm_later=arm_later if any(arm_later) else (),
                     test_binding=test_binding, returned_result=returning,
                     captured_reads=self.captured_reads, map_copies=self.map_copies,
                     captured_params=self.captured_params, unseen_calls=self.unseen_calls,
                     record_draws=self.record_draws,
                     lost_summaries=self.lost_summaries, drawn_params=self.drawn_params)

    def _grouped_batching(self, group, found, bound, batching: Batching, calls, other) -> Batching:
        """The batching of a group loop's list (group_reads.py) as the batching of its records: the
        grouping is the reader's (RecordReader.read_groups), so enqueue_many's unbatch is done.
        `other`: the list is batched in if/else arms, a tower loop, through a hand-built queue, by a
        helper or into a queue of batches, which are not rewritten with groups."""
        count, list_name, reader = group
        if other:
            raise _Broken(calls, "%s, and batches that list in if/else arms, a tower loop, a helper or through "
                          "another queue, which qmigrate does not rewrite with groups of records"
                          % joins.group_described(count, list_name, reader))
        packed = group_reads.packed(bound.get("tensors"), list_name, self.imports.resolve)
        refused = group_reads.refusal("join" if found[0] in JOINERS else "batch", batching.enqueue_many, packed,
                                      reader, list_name, count)
        if refused:
            raise _Broken(calls, refused)
        if batching.keep_input or batching.bucket_boundaries is not None or batching.shapes or batching.dynamic_pad:
            raise _Broken(calls, "the loop reads %s records in a row into `%s` with the one reader `%s`, and the "
                          "batching filters, buckets, pads or sets shapes of the groups, which qmigrate does not "
                          "rewrite with groups of records" % (count, list_name, reader))
        return dataclasses.replace(batching, enqueue_many=False)

    def _queue_dtypes(self, index: int, tainted: Set[str], calls) -> bool:
        """Whether statement `index` is the constructor of a hand-built queue of the block that reads
        the records only in its `dtypes=` (`dtypes=(image.dtype, label.dtype)`): it goes with the
        queue, and the dataset's element has those dtypes already. Raises _Broken when it reads them
        in another argument (a capacity or shuffle buffer per record)."""
        queue = next((q for q in self.queues.accepted.values() if q.plumbing and q.plumbing[0] == index), None)
        assign = cstutil.single_assign(self.body[index])
        if queue is None or assign is None or not queue.calls or assign[1] is not queue.calls[0]:
            return False
        constructor = queue.calls[0]
        others = [arg for arg in constructor.args if not (arg.keyword is not None and arg.keyword.value == "dtypes")]
        read = tainted & set(cstutil.name_uses(constructor.with_changes(args=others)).loads)
        if read:
            raise _Broken(calls + queue.calls, "`%s` is built with `%s`, a per-record tensor, outside its `dtypes=`"
                          % (queue.name, sorted(read)[0]))
        return True

    def _ends_chain(self, index: int) -> bool:
        """Whether nothing after statement `index` of the block (a hand-built queue's dequeue()) may
        batch or queue its records again: no batching, join, filter or bucketing call, no batch helper
        call, no other hand-built queue's enqueue or queue helper call, anywhere after it."""
        for later in range(index + 1, len(self.body)):
            if later in self.queues.accepted or later in self.queues.refused:
                return False
            finder = _CallFinder(self.imports, BATCHERS + JOINERS + FILTERERS + BUCKETERS + _QUEUES)
            cstutil.walk(self.body[later], finder)
            if finder.found:
                return False
            if any(self._batch_helper(call) or self._refused_helper(call)
                   for call in cstutil.calls_of(self.body[later])):
                return False
        return True

    def _unbatched(self, producer, reader, read_index: int, key: Optional[str], value: str, calls, removed,
                   reader_index: Optional[int], reason: str, record_indices, slim_bound=None, helper=None) -> Match:
        """A read whose records no queue of this block batches (returned, stored, used one per step),
        or a producer's rows taken so with no reader (`reader` None: the rows are the records).

        The producer and reader become a dataset whose one-shot iterator's get_next() stands where
        the read stood, giving one record (or read_up_to's chunk) per run as the read did; the
        per-record code stays where it is, as it ran in the caller's step, not in a queue's thread.
        `reason`: why the chain did not reach a batching, said when this form cannot be proven.
        `record_indices`: the statements that read the records after the read. `slim_bound`: the
        arguments of a slim read, which is its own producer (the read's statement). `helper`:
        (the queue's name, (the reader helper,)) when the read is a reader helper's call given the
        queue: the call stays, after get_next(), given the record (`value`) in the queue's place.
        """
        producer_index, producer_rule, producer_call = producer
        for index in record_indices:
            for call in cstutil.calls_of(self.body[index]):
                if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("enqueue", "enqueue_many"):
                    # A hand-built queue that stays: its records are its own to batch, with it.
                    raise _Broken(calls, reason + "; they go into a hand-built queue's enqueue (line %d)"
                                  % self._line_of(index))
                if rule_for(self.imports.resolve(call.func)) is not None:
                    raise _Broken(calls, reason + "; they go into %s (line %d), queue-based code that stays"
                                  % (_code(call.func), self._line_of(index)))
        try:
            bound = slim_bound if slim_bound is not None else producer_rule.bind(producer_call)
            matched = None if slim_bound is not None else self._file_name_match(bound, producer_index, read_index,
                                                                                calls)
            extra = ()
            if matched is not None:  # match_filenames_once, in the call or one line above
                call, index = matched
                bound = dict(bound, string_tensor=call)
                calls += (call,)
                extra = (index,) if index is not None else ()
            file_source = producer_rule.model(bound, self.source_of, self.imports.resolve)
            self._check_attribute_condition(bound.get("shuffle"), producer_index, read_index,
                                            set(removed) | {reader_index}, calls)
            file_source, test_binding = self._bind_test(file_source, producer_index, producer_call, read_index, calls)
            record_reader = self._reader_model(reader)
        except Unsupported as unsupported:
            raise _Broken(calls, str(unsupported))
        if key and record_reader.kind != "whole_file":
            raise _Broken(calls, "the code uses the reader's key `%s`, which the %s dataset does not give"
                          % (key, record_reader.kind))
        moved = [producer_index] + ([reader_index] if reader_index is not None else [])
        if slim_bound is not None and producer_index == read_index:
            moved = []  # the read's own statement becomes the dataset and its get_next()
        elif producer_index == read_index:
            moved = moved[1:]  # a slice producer's own statement (or a producer made in the read): no queue name
        shared = None
        for index in moved:
            name = producer_target(self.body[index])
            if index == reader_index and record_reader.kind == "whole_file" and self.scope_loads[name] > 1:
                # A whole-file reader finishes its file in each read: reads of other queues through it
                # are independent, and it goes once each of them is rewritten (checked in run()).
                shared = (index, name)
            elif self._binding_loads(name, index) != self.provider_gets.get(name, 1):
                raise _Broken(calls, "`%s` is used beyond reader.read(), by code qmigrate cannot rewrite" % name)
        # The dataset is built where the read stood: what the producer and reader read must not change.
        for index in moved + list(extra):
            reads = set(self.uses[index].loads)
            for later in range(index + 1, read_index):
                rebound = reads & (self.uses[later].stores | self.uses[later].mutated)
                if rebound:
                    raise _Broken(calls, "`%s` is reassigned between the queue and its read, so the dataset built "
                                  "at the read would see another value" % sorted(rebound)[0])
        # Named when applied (a record-source helper's read may be left to its callers).
        pipeline = Pipeline(file_source, record_reader, None, Batching("1"), unbatched=True, keyed=bool(key),
                            file_name_param=self._fresh_local("filename", file_source, record_reader))
        target = "%s, %s" % (key, value) if key else value
        removed = tuple(i for i in (producer_index,) + extra + tuple(removed) if i != read_index)
        several = key or (reader is None and ", " in value)  # a slice producer's rows of several tensors
        queue_name, helpers_used = helper or (None, ())
        return Match(tuple(dict.fromkeys(removed)), read_index, (), read_index, pipeline,
                     "tuple" if several else "single", calls, unbatched_target=target, shared_reader=shared,
                     test_binding=test_binding, queue_name=queue_name, helpers_used=helpers_used)

    def _bind_test(self, file_source, producer_index: int, producer_call: cst.Call, read_index: int, calls):
        """(file_source, the statement that takes the producer's place, or None). A `shuffle=` test
        that the producer evaluated itself (`a.mode == "train"`, a rules.base.ProducerTest) is
        evaluated at the same place, once, into a name of its own, which the dataset tests where
        it is built: the same test at the same point, whatever runs in between."""
        test = file_source.shuffle
        if not isinstance(test, ProducerTest):
            return file_source, None
        assign = cstutil.single_assign(self.body[producer_index])
        if producer_index == read_index or assign is None or assign[1] is not producer_call:
            raise _Broken(calls, "`shuffle=%s` is a test the producer made where it stood; qmigrate keeps such a "
                          "test there, bound to a name the dataset tests, only when the producer's own statement "
                          "(`queue = producer(...)`) is in the block that builds the dataset" % test)
        name = self.names.fresh("shuffle_files")
        return dataclasses.replace(file_source, shuffle=name), (producer_index, "%s = %s" % (name, test))

    def _check_attribute_condition(self, node, producer_index: int, built_index: int, moved: Set[int],
                                   calls) -> None:
        """For a producer's `shuffle=` that is an attribute (`self.is_training`), tested by a Python
        `if` where the dataset is built (`built_index`, the read or the batch) instead of at the
        producer: prove nothing between can reassign it. Refused when a statement between that stays
        (not in `moved`: the chain's own statements, and the per-record code, which the map function
        runs after the test as the queue ran it after the producer's) rebinds or stores into its base
        name, or calls anything but a TensorFlow API (any other function or method may reach the
        object and change the attribute)."""
        if not isinstance(node, cst.Attribute):
            return  # literals need nothing; a plain name's rebinding is checked with the chain's reads
        base = condition_base(node)
        for index in range(producer_index + 1, built_index):
            if index in moved:
                continue
            uses = self.uses[index]
            if base in uses.stores or base in uses.mutated:
                raise _Broken(calls, "`shuffle=%s` is tested where the dataset is built, at line %d, and line %d "
                              "stores into `%s` before it" % (_code(node), self._line_of(built_index),
                                                              self._line_of(index), base))
            for call in cstutil.calls_of(self.body[index]):
                resolved = self.imports.resolve(call.func)
                if resolved is None or not resolved.startswith("tensorflow."):
                    raise _Broken(calls, "`shuffle=%s` is tested where the dataset is built, at line %d, and "
                                  "`%s(...)` at line %d, before it, may change it"
                                  % (_code(node), self._line_of(built_index), _code(call.func),
                                     self._line_of(index)))

    def _later_batchings(self, index: int, tainted: Set[str]) -> Tuple[cst.Call, ...]:
        """The batching calls after leaf `index` that read the records (`tainted`): the reason the
        chain stops at `index` is theirs too."""
        found = []
        for later in range(index + 1, len(self.body)):
            batching = _call_with_rule(cstutil.statement_value(self.body[later]), self.imports, BATCHERS)
            if batching and tainted & set(self.uses[later].loads):
                found.append(batching[1])
        return tuple(found)

    def _file_name_match(self, bound, producer_index: int, batch_index: int, calls):
        """(the match_filenames_once call, the index of the statement that binds it, or None when
        that statement stays) for a producer whose file names it gives, in place or through a name
        (which stays when something else uses it too)."""
        files = bound.get("string_tensor")
        if isinstance(files, cst.Call) and self.imports.resolve(files.func) == MATCH_FILENAMES_ONCE:
            return files, None
        if not isinstance(files, cst.Name):
            return None
        for index in range(producer_index - 1, -1, -1):
            if files.value not in self.uses[index].stores:
                continue
            assign = cstutil.single_assign(self.body[index])
            if not (assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call)
                    and self.imports.resolve(assign[1].func) == MATCH_FILENAMES_ONCE):
                return None
            # The pattern is read where the chain now stands: nothing may rebind what it reads.
            reads = set(self.uses[index].loads)
            if any(reads & self.uses[later].stores for later in range(index + 1, batch_index)):
                raise _Broken(calls + (assign[1],), "what the match_filenames_once pattern reads is "
                              "reassigned before the batch")
            # A one-shot iterator cannot capture the variable itself: the dataset lists the files
            # with the op the variable was initialised from; the variable stays for its other uses.
            return assign[1], (index if self.scope_loads[files.value] == 1 else None)
        return None

    def _reader_model(self, reader):
        """The RecordReader of (rule, call, arguments moved out of a helper or None, read_up_to's
        count or None), or None."""
        if reader is None:
            return None
        rule, call, moved_arguments, up_to = reader
        if moved_arguments is None:
            model = rule.model(self._local_options(rule.bind(call)), self.source_of, self.imports.resolve)
        else:
            model = rule.model(moved_arguments, _code, self.imports.resolve)
        if up_to is None:
            return model
        if model.kind == "whole_file":
            raise Unsupported("it reads whole files with read_up_to(), whose keys qmigrate does not model")
        return dataclasses.replace(model, read_up_to=self.source_of(up_to))

    def _local_options(self, bound: Dict[str, cst.BaseExpression]) -> Dict[str, cst.BaseExpression]:
        """The reader's arguments with `options=name` replaced by the call that binds `name`, when
        the block binds it once, `name = <call>`, and nothing else in the function rebinds it
        (`options = tf.python_io.TFRecordOptions(...)` a line above the reader): the reader's rule
        reads the compression type from that call. The binding statement stays where it is."""
        options = bound.get("options")
        if not isinstance(options, cst.Name) or (
                isinstance(self.scope, cst.FunctionDef) and options.value in _param_names(self.scope)):
            return bound
        binders = [index for index in range(len(self.body)) if options.value in self.uses[index].stores]
        if len(binders) != 1:
            return bound
        assign = cstutil.single_assign(self.body[binders[0]])
        if not (assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call)):
            return bound
        return dict(bound, options=assign[1])

    def _batch_in_tower_loop(self, index: int, tainted: Set[str], built_from: Set[str]):
        """(TowerLoopBatch, inner batching leaf, batching helper or None) when leaf `index` is a
        `for i in range(n):` loop that batches the shared reader's records once per iteration
        (with or without `tf.device` in it: towers, or sets of batches handed out later), its
        per-record statements before the batching moving into the map function (loop_records).
        `built_from`: the names the chain before the loop reads, and its records. None when the
        leaf is no such loop; a reason (str) when the loop's use of the records is not proven."""
        loop = self.body[index]
        if not isinstance(loop, cst.For) or not isinstance(loop.body, cst.IndentedBlock):
            return None
        loop_var, towers_expr = towers.tower_range(loop, self.imports)
        if loop_var is None:
            return None
        line = self._line_of(index)
        leaves = blocks.flatten(loop.body.body, loop.body.body)

        def is_batching(leaf) -> bool:
            value = cstutil.statement_value(leaf.original)
            return bool(cstutil.single_assign(leaf.original) and (
                _call_with_rule(value, self.imports, BATCHERS) or self._batch_helper(value)))

        scanned = loop_records.scan(leaves, tainted, is_batching,
                                    lambda call: rule_for(self.imports.resolve(call.func)) is not None, line)
        if isinstance(scanned, str) or scanned[1] is None:
            return scanned if isinstance(scanned, str) else None
        records, batch = scanned
        params = _param_names(self.scope) if isinstance(self.scope, cst.FunctionDef) else set()
        refused = loop_records.refusal(
            leaves, records, batch, loop_var, tainted, built_from,
            lambda name: name in params or any(name in self.uses[other].stores
                                               for other in range(len(self.body)) if other != index),
            self.scope_loads, line)
        if refused:
            return refused
        tower = TowerLoopBatch(batch.path, loop_var, self.source_of(towers_expr),
                               tuple(leaf.path for leaf in records), towers.places_devices(loop, self.imports))
        return tower, batch, self._batch_helper(cstutil.statement_value(batch.original))

    def _helper_batching(self, helper: helpers.BatchHelper, call: cst.Call, calls):
        """The batching a helper call performs, written in the caller's scope."""
        name = helper.function.name.value
        try:
            arguments = helpers.bind_call(helper.function, call)
        except helpers.NotMovable as error:
            raise _Broken(calls, "%s() %s" % (name, error))
        sites, test = helper.sites[:1], None
        if helper.flag is not None:
            truth = helpers.literal_truth(arguments.get(helper.flag))
            if truth is not None:
                sites = [helper.sites[0] if truth else helper.sites[1]]
            elif batch_down.given_test(helper.function, helper.flag, arguments):
                sites, test = list(helper.sites), self.source_of(arguments[helper.flag])
            else:
                raise _Broken(calls, "%s() is called with `%s` computed at run time, so which batching it does "
                              "is unknown" % (name, helper.flag))
        models = []
        for site in sites:
            try:
                definitions = helpers.reaching_definitions(helper.function, helper.removable[0])
                module_names = frozenset() if helper.foreign else self.context.module_names
                moved = {}
                for param, node in site.rule.bind(site.call).items():
                    if param == "tensors":
                        continue
                    try:
                        moved[param] = helpers.move_expression(node, helper.function, helper.removable[0],
                                                               arguments, module_names, definitions=definitions)
                    except helpers.NotMovable:
                        if param != "num_threads":
                            raise
                        # How many threads ran the per-record code changes no example, batch or
                        # epoch: the map function runs on one thread where it cannot be written.
                models.append(site.rule.model(moved, _code, self.imports.resolve))
            except helpers.NotMovable as error:
                raise _Broken(calls + (site.call,), "the arguments of its batching cannot be moved out of %s(): %s"
                              % (name, error))
            except Unsupported as error:
                raise _Broken(calls + (site.call,), str(error))
        batching = models[0]
        if test is not None:
            batching, why = batch_down.runtime_choice(models[0], models[1], test)
            if batching is None:
                raise _Broken(calls + tuple(s.call for s in sites), "%s() is called with `%s` computed at run time, "
                              "and %s" % (name, helper.flag, why))
        missing = [p for p in helper.tensor_params if p not in arguments]
        if missing:
            raise _Broken(calls, "%s() is called without `%s`" % (name, missing[0]))
        sources = [self.source_of(arguments[p]) if p not in helper.listed else self._listed_source(
            helper, p, arguments[p], calls) for p in helper.tensor_params]
        element_kind = "single" if len(sources) == 1 else "tuple"
        targets = tuple(self._fresh_local(t) for t in helper.targets)
        return (batching, element_kind, ", ".join(sources), HelperBatch(helper, targets),
                tuple(s.call for s in helper.sites))

    def _listed_source(self, helper: helpers.BatchHelper, param: str, argument, calls) -> str:
        """The map function's value for a parameter the helper may take as a list of tensors
        (built_rows.py): list displays as tuples, other lists tested and made tuples."""
        name = helper.function.name.value
        element, why = built_rows.as_element(argument)
        if element is None:
            raise _Broken(calls, "%s() may take `%s` as a list of tensors, and it is given %s: qmigrate hands "
                          "down a list display or a tensor" % (name, param, why))
        source = self.source_of(element)
        return "(%s)" % source if isinstance(element, cst.IfExp) and not element.lpar else source

    def _read_targets(self, target: cst.BaseExpression, calls) -> Tuple[Optional[str], str]:
        if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
            raise _Broken(calls, "the result of reader.read() is not unpacked into `key, value`")
        key, value = (_target_name(element.value) for element in target.elements)
        if value is None or key is None:
            raise _Broken(calls, "reader.read() is unpacked into something other than two plain names")
        if key == "_" or self.scope_loads[key] == 0:
            key = None
        return key, value

    def _check_kept(self, queue, tainted: Set[str], calls) -> None:
        """The statements that stay in `if test:` beside a queue helper's call do not touch the
        records: they stay where they are, outside the map function."""
        uses = cstutil.name_uses(queue.kept)
        for names, what in ((set(uses.loads), "uses"), (uses.stores | uses.mutated, "rebinds")):
            touched = tainted & names
            if touched:
                raise _Broken(calls + queue.calls, "the `if %s:` around %s() also %s `%s`, a per-record tensor, "
                              "outside the call; only the call's records can move into the map function"
                              % (queue.condition, queue.helper, what, sorted(touched)[0]))

    def _check_isolated(self, producer_index, reader_index, read_index, record_indices, batch_index, tainted,
                        calls, chain, on_self=frozenset(), kept=frozenset(), returned=None, map_returns=""):
        """Prove that moving the chain cannot change what any other code sees. `kept`: record
        leaves that stay in place too (their moved part reads only what handbuilt checked).
        `returned`: the map function's element, when it is one name; if the function also returns
        it, and every caller discards it, that is allowed: (function, position, arity) is returned
        (returned_records), else None."""
        returning = None
        chain = set(chain) | set(record_indices)
        queues = []  # (name, its binding); a slice producer's outputs are records, checked with the tainted names below
        if (reader_index is not None or producer_index != read_index) and "queue" not in on_self:
            queues.append((producer_target(self.body[producer_index]), producer_index))
        if reader_index is not None and "reader" not in on_self:
            queues.append((producer_target(self.body[reader_index]), reader_index))
        for queue_name, index in queues:
            if self._binding_loads(queue_name, index) != self.provider_gets.get(queue_name, 1):
                raise _Broken(calls, "`%s` is used beyond reader.read(), by code qmigrate cannot rewrite" % queue_name)
        inside = Counter()
        for index in chain:
            inside.update(self.uses[index].loads)
        # `with tf.control_dependencies([check]):` around per-record code goes into the map function.
        headers = [item.item for with_node in self._moved_withs(record_indices, read_index, chain)
                   for item in with_node.items]
        for header in headers:
            inside.update(cstutil.name_uses(header).loads)
        for name in sorted(tainted):
            expected = inside[name] + self._earlier_loads(name, chain) + (
                self._later_loads(name, batch_index) or self._rebound_loads(name, batch_index))
            if name == returned and self.scope_loads[name] == expected + 1:
                returning = self._returned_record(name, batch_index, calls)
                expected += returning is not None
            if self.scope_loads[name] > expected:
                header = self._with_header_using(name)
                if header is not None:
                    raise _Broken(calls, "the per-record tensor `%s` is used in the header of the `with` at line %d "
                                  "(such as tf.control_dependencies), which qmigrate does not move into the map "
                                  "function yet" % (name, header))
                other = self._other_batching_of(name, batch_index)
                if other is not None:  # the other batching is told the same
                    raise _Broken(calls + (other,), "the records are batched twice, at lines %d and %d (`%s` goes to "
                                  "both), each record by whichever queue took it first; qmigrate does not split one "
                                  "reader's records between two batchings" % (
                                      self._line_of(batch_index),
                                      self.context.line_of(other) if self.context.line_of else 0, name))
                raise _Broken(calls, "the per-record tensor `%s` is also used outside the record path" % name)
        for index in record_indices:
            escaped = self.uses[index].mutated - tainted
            if escaped:
                raise _Broken(calls, "the per-record code stores into `%s`, which lives outside the record path"
                              % sorted(escaped)[0])
        self._check_locals_of_map(record_indices, batch_index, chain, kept, calls, tainted, map_returns)
        self._check_graph_only_calls(record_indices, kept, calls, headers)
        if map_returns and not self.record_draws:  # the batching's tensors are computed in the map too
            self.record_draws = any(self._may_draw(call.func, self.imports.resolve(call.func) or "")
                                    for call in cstutil.calls_of(cst.parse_expression("(%s)" % map_returns)))
        self._check_stateful_captures(record_indices, batch_index, chain, kept, calls, map_returns, headers,
                                      producer_index)
        # The map function is traced where the batch was built: what it reads must not change
        # between where the code stood and there; the producer's and reader's arguments neither.
        readers = [index for index in record_indices if index not in kept] + [producer_index] + (
            [reader_index] if reader_index is not None else [])
        for reader in readers:
            reads = set(self.uses[reader].loads) - tainted
            for index in range(reader + 1, batch_index):
                # A kept `if` stays where it is: what it binds is bound there, after the moved code.
                rebound = reads & self.uses[index].stores if index not in chain or index in kept else set()
                if rebound:
                    raise _Broken(calls, "`%s` is reassigned between the queue and the batch, so the moved code "
                                  "would see another value" % sorted(rebound)[0])
        return returning

    def _returned_record(self, name: str, batch_index: int, calls) -> Optional[Tuple[str, int, int]]:
        """(function, position, arity) when, after the batching, the only use of the per-record
        `name` is as one element of the tuple the function returns (`return name, batches`), and
        every caller of the module discards that element; None when it is used otherwise. _Broken
        when callers may use it."""
        if not (isinstance(self.scope, cst.FunctionDef) and self._straight_body):
            return None
        for index in range(batch_index + 1, len(self.body)):
            uses = self.uses[index]
            if name in uses.stores or name in uses.mutated:
                return None
            if name not in uses.loads:
                continue
            small = cstutil.single_small(self.body[index])
            if not (isinstance(small, cst.Return) and isinstance(small.value, cst.Tuple)
                    and uses.loads.count(name) == 1):
                return None
            elements = small.value.elements
            places = [i for i, element in enumerate(elements)
                      if isinstance(element.value, cst.Name) and element.value.value == name]
            if len(places) != 1 or any(isinstance(element, cst.StarredElement) for element in elements):
                return None
            function, line = self.scope.name.value, self._line_of(index)
            why = self.context.kept_results.get(function)
            if why is None:
                if self.context.tree is None:
                    why = "its callers cannot be read"
                else:
                    caller = returned_records.first_use(self.context.tree, function, places[0], len(elements))
                    if caller is not None:
                        why = "the call at line %d may use that result (only `_` in its place, at every call, " \
                              "says it does not)" % caller
            if why is not None:
                raise _Broken(calls, "the per-record `%s` is also returned by %s() (line %d), and %s; migrated, it "
                              "would come from an iterator of its own, where the queue's dequeue took records from "
                              "the batches, so a caller using it would see other records" % (name, function, line, why))
            return function, places[0], len(elements)
        return None

    def _check_graph_only_calls(self, record_indices, kept, calls, headers=()) -> None:
        """Summaries and collection entries made by the moved per-record code would be made in the
        map function's graph, not the program's: `merge_all()` and `get_collection()` would no
        longer see them, with no error; a variable made there fails when the one-shot iterator is
        made. Refused, naming the call: those written in the moved statements (and in the headers
        of the `with`s that move with them), and those of the functions they call that qmigrate
        can read (graph_state). Calls of functions made at run time, which it cannot, are kept in
        `unseen_calls`, for a note (QM909). With --unsafe a summary is no bar: the calls that make
        one are kept in `lost_summaries`, for a finding (QM910)."""
        unseen, lost = [], []
        skip = frozenset(("summary",)) if self.context.unsafe else frozenset()
        self.unseen_calls = self.lost_summaries = ()
        draws = False  # the code may call a random op (what it calls at run time, unseen, may)
        moved = [(index, self.body[index]) for index in sorted(record_indices) if index not in kept]
        moved += [(moved[0][0] if moved else 0, header) for header in headers]  # its calls, by their own lines
        for index, node in moved:
            for call in cstutil.calls_of(node):
                made = self._made_at_run_time(call.func, index)
                if made is not None:
                    read, state = self._factory_products_state(call.func, index, skip)
                    if state is not None:
                        spelled, made_line, function, kind, where, product = state
                        hint, finding = _summary_refusal(kind == "summary", call)
                        raise _Broken(calls, "the per-record code calls `%s()` (line %d), %s, which may give `%s`, "
                                      "and `%s` (line %d%s, in %s()) makes %s: %s; keep it out of the per-record code "
                                      "(on the batch, or made once before the pipeline)%s"
                                      % ((_code(call.func), self._call_line(call, index), made, product, spelled,
                                          made_line, where, function) + _state_clause(kind) + (hint,)),
                                      finding=finding)
                    summary = self._factory_products_state(call.func, index)[1] if skip else None
                    if summary is not None:
                        lost.append((call, summary[0], "line %d%s, in %s()" % (summary[1], summary[4], summary[2])))
                    if not read:
                        unseen.append((call, made))
                name = self.imports.resolve(call.func) or ""
                draws = draws or made is not None or self._may_draw(call.func, name)
                if skip and graph_state.is_summary(name):
                    lost.append((call, _code(call.func), "line %d" % self._call_line(call, index)))
                    continue
                if graph_state.is_summary_or_collection(name):
                    line = self._call_line(call, index)
                    hint, finding = _summary_refusal(graph_state.is_summary(name), call)
                    raise _Broken(calls, "the per-record code calls `%s` (line %d): in the map function it would be "
                                  "made in the function's graph, so the program's summaries and collections would "
                                  "no longer hold it; move it after the batching, on the batch%s"
                                  % (_code(call.func), line, hint), finding=finding)
                if name in graph_state.VARIABLES and name not in _GLOBAL_STEP_CALLS:
                    # `beta = tf.get_variable('beta', [image.get_shape()[-1]])`, then `image + beta` (the
                    # global step has a reason of its own: _check_stateful_captures)
                    raise _Broken(calls, "the per-record code calls `%s` (line %d), which makes a variable: in the map "
                                  "function it would be made in the function's graph, which a one-shot iterator "
                                  "cannot capture (TF 1.x fails when the iterator is made), where the queue's thread "
                                  "read the program's variable for each record; make it once before the pipeline "
                                  "and apply it to the batch after the batching" % (
                                      _code(call.func), self._call_line(call, index)))
                if name in graph_state.GRAPH_ONLY and not isinstance(call.func, cst.Attribute):
                    # (`tf.parallel_stack(...)` is written `tf.stack(...)` in the map function:
                    # engine._record_function; a name imported from TensorFlow is not renamed)
                    line = self._call_line(call, index)
                    raise _Broken(calls, "the per-record code calls `%s` (line %d), which only the program's graph "
                                  "can run, not a map function's (TensorFlow rewrites it when it optimises the "
                                  "program's graph); write it `tf.stack`, which gives the same tensor"
                                  % (_code(call.func), line))
                made = self._state_made_by(call.func, skip)
                summary = self._state_made_by(call.func) if skip and made is None else None
                if summary is not None:
                    lost.append((call, summary[0], "line %d%s, in %s()" % (summary[1], summary[4], summary[2])))
                if made is not None:
                    spelled, made_line, function, kind, where = made
                    line = self._call_line(call, index)
                    if kind == "graph-only":
                        raise _Broken(calls, "the per-record code calls `%s()` (line %d), and `%s` (line %d%s, in "
                                      "%s()) only the program's graph can run, not a map function's (TensorFlow "
                                      "rewrites it when it optimises the program's graph); write it `tf.stack`, "
                                      "which gives the same tensor"
                                      % (_code(call.func), line, spelled, made_line, where, function))
                    hint, finding = _summary_refusal(kind == "summary", call)
                    raise _Broken(calls, "the per-record code calls `%s()` (line %d), and `%s` (line %d%s, in %s()) "
                                  "makes %s: %s; keep it out of the per-record code (on the batch, or made once before "
                                  "the pipeline)%s" % ((_code(call.func), line, spelled, made_line, where, function)
                                                       + _state_clause(kind) + (hint,)), finding=finding)
                wrapper = self._wrapping_decorator(call.func)
                if wrapper is not None:
                    line = self._call_line(call, index)
                    raise _Broken(calls, "the per-record code calls `%s()` (line %d), which `@%s` decorates%s: what "
                                  "a decorator makes of a function is code qmigrate does not follow (it may build a "
                                  "queue and its runner, as sugartensor's `producer_func` does, which a map function "
                                  "cannot run)" % ((_code(call.func), line) + wrapper))
        self.unseen_calls, self.lost_summaries = tuple(unseen), tuple(lost)
        self.record_draws = draws

    def _call_line(self, call: cst.Call, index: int) -> int:
        """The line of a call in leaf `index` (asked only to say it: positions cost)."""
        return self.context.line_of(call) if self.context.line_of else self._line_of(index)

    def _made_at_run_time(self, func: cst.BaseExpression, index: int) -> Optional[str]:
        """How the function a per-record call calls by a plain name is made, when qmigrate cannot
        read it: "made by `f(...)` (line N)" for a name bound in this block, before, to a call's
        result; "a parameter of `g()`" for a parameter of this function. None otherwise (a function
        of the module or block, an import, a builtin, a class)."""
        if not isinstance(func, cst.Name) or func.value in _BUILTIN_NAMES or func.value in self.imports.aliases \
                or func.value in self.context.functions:
            return None
        name = func.value
        binder = self._last_binding(name, index)
        if binder is not None:
            assign = cstutil.single_assign(self.body[binder])
            if assign is not None and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call) \
                    and not _call_with_rule(assign[1], self.imports, PRODUCERS + READERS):
                return "made by `%s(...)` (line %d)" % (_code(assign[1].func), self._line_of(binder))
            return None
        if isinstance(self.scope, cst.FunctionDef) and name in cstutil.param_names(self.scope) \
                and name not in self.scope_stores:
            return "a parameter of `%s()`" % self.scope.name.value
        return None

    def _last_binding(self, name: str, index: int) -> Optional[int]:
        """The index of the last statement of this block before `index` that binds `name`."""
        return next((i for i in range(index - 1, -1, -1) if name in cstutil.name_uses(self.body[i]).stores), None)

    def _factory_of(self, func: cst.BaseExpression, index: int):
        """(stdlib tree, path, name) of the factory that made the function a per-record call calls
        by a plain name (`fn = factory(...)` in this block before it): a top-level function of this
        module or one imported from a module beside it; None otherwise."""
        if not isinstance(func, cst.Name):
            return None
        binder = self._last_binding(func.value, index)
        assign = cstutil.single_assign(self.body[binder]) if binder is not None else None
        if assign is None or not isinstance(assign[1], cst.Call):
            return None
        factory = assign[1].func
        here = getattr(self.context.load_module, "importer", None)
        if isinstance(factory, cst.Name) and factory.value in self.context.functions:
            return (self.context.tree, here, factory.value) if self.context.tree is not None and here else None
        places = self._imported_places(factory, star=False)
        if not places:
            return None
        path, name = places[0]
        tree = decorated_calls.tree_of(path)
        return (tree, path, name) if tree is not None else None

    def _factory_products_state(self, func: cst.BaseExpression, index: int, skip=frozenset()):
        """For a per-record call of a function a factory of the run made: (whether every function
        the factory may give was read, so no note (QM909) is needed; the first state one of them
        makes: graph_state.made_by's answer, " of <file>" or "", the function as written, or None).
        A closure is never wholly read (it may call what the factory was handed): its state found
        keeps the pipeline, but its note stays."""
        found = self._factory_of(func, index)
        if found is None:
            return False, None
        tree, path, name = found
        made = factories.products(tree, name)
        if made is None:
            return False, None
        imports = ImportMap(None, tree)
        # The factory's imports are found as the program finds them: from this module's roots (the
        # script's directory is on its path), else from the factory's own.
        loaders = [loader for loader in (self.context.load_module, slim_modules.ModuleLoader(path))
                   if getattr(loader, "path_of", None) is not None]
        label = "" if path == getattr(self.context.load_module, "importer", None) else " of %s" % os.path.basename(path)
        read = True
        for product in made:
            if product.closure is not None:
                state = graph_state.made_by_closure(tree, product.closure, imports, skip)
                if state is not None:
                    return True, state + (label, "%s()'s %s()" % (name, product.name))
                read = False
                continue
            if product.module is None:
                state = graph_state.made_by(tree, product.name, imports, skip=skip)
                if state is not None:
                    return True, state + (label, product.name)
                if not factories.defines(tree, product.name):
                    return False, None
                continue
            module = imports.resolve_dotted(product.module)
            where = next((found for found in (loader.path_of(module) for loader in loaders) if found), None) \
                if module and not module.startswith("tensorflow") else None
            other = decorated_calls.tree_of(where) if where else None
            if other is None or not factories.defines(other, product.name):
                return False, None
            state = graph_state.made_by(other, product.name, ImportMap(None, other), skip=skip)
            if state is not None:
                return True, state + (" of %s" % os.path.basename(where), "%s.%s" % (product.module, product.name))
        return read, None

    def _may_draw(self, func: cst.BaseExpression, name: str) -> bool:
        """Whether a per-record call (its canonical `name`, or "") may run a random op: a random
        op itself, a function of this module, class or a module beside it that calls one, or a
        function of a module qmigrate cannot read (not TensorFlow, not a library of plain values)."""
        if graph_state.draws(name):
            return True
        if name.startswith("tensorflow.") or name.split(".")[0] in _VALUE_LIBRARIES:
            return False
        if self._state_made_by(func, hit=graph_state.random_kind) is not None:
            return True
        if "." not in name:  # a builtin, a method of a value, a function of the block
            return False
        places = self._imported_places(func, star=False)  # read by _state_made_by when it could be
        return not places or decorated_calls.tree_of(places[0][0]) is None

    def _local_function(self, func: cst.BaseExpression) -> Optional[Tuple[cst.FunctionDef, ast.AST]]:
        """(the definition, its stdlib tree) of the function `func` names when this function
        defines it in its own body (in a block of it, not in a function or class inside it), and
        the module does not; None otherwise. Found and parsed once a name (the state and the draws
        of each per-record call ask)."""
        if not isinstance(func, cst.Name) or not isinstance(self.scope, cst.FunctionDef) \
                or func.value in self.context.functions:
            return None
        if func.value not in self._local_functions:
            self._local_functions[func.value] = self._find_local_function(func.value)
        return self._local_functions[func.value]

    def _find_local_function(self, name: str) -> Optional[Tuple[cst.FunctionDef, ast.AST]]:
        found = []

        class _Defs(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                if node.name.value == name:
                    found.append(node)
                return False

            def visit_ClassDef(self, node: cst.ClassDef) -> bool:
                return False

        self.scope.body.visit(_Defs())
        if len(found) != 1:
            return None
        try:
            tree = ast.parse(textwrap.dedent(cst.Module([]).code_for_node(found[0].with_changes(leading_lines=[]))))
        except (SyntaxError, ValueError):
            return None
        return found[0], tree.body[0]

    def _state_made_by(self, func: cst.BaseExpression, skip=frozenset(),
                       hit=None) -> Optional[Tuple[str, int, str, str, str]]:
        """graph_state.made_by's answer for the function `func` names, followed by "" or " of
        <file>": a top-level function of this module, or one imported from a module beside it.
        None when it makes no summary, collection entry or variable (or what `hit` looks for),
        or cannot be read."""
        tree = self.context.tree
        if tree is not None and isinstance(func, cst.Name) and func.value in self.context.functions:
            made = graph_state.made_by(tree, func.value, self.imports, skip=skip, hit=hit)
            if made is not None:
                return made + ("",)
        found = self._local_function(func)
        if tree is not None and found is not None:  # a function defined in this one, before or after
            local, closure = found
            made = graph_state.made_by_closure(tree, closure, self.imports, skip, hit)
            if made is None:
                return None
            spelled, line, function, kind = made
            first = self.context.line_of(local) if self.context.line_of else 0
            where = local.name.value if function == "<%s>" % local.name.value else function
            return spelled, first + line - 1 if line and first else line, where, kind, ""
        if tree is not None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value == "self":
            owner = self._method_owner()
            if owner is not None:
                made = graph_state.made_by(tree, func.attr.value, self.imports, owner, skip, hit)
                return made + ("",) if made is not None else None
        places = self._imported_places(func, star=False)
        if not places:
            return None
        path, name = places[0]
        tree = decorated_calls.tree_of(path)
        if tree is None:
            return None
        made = graph_state.made_by(tree, name, ImportMap(None, tree), skip=skip, hit=hit)
        return made + (" of %s" % os.path.basename(path),) if made is not None else None

    def _imported_places(self, func: cst.BaseExpression, star: bool) -> List[Tuple[str, str]]:
        """(path, name) of the modules beside this one where the function `func` names may be
        defined: imported by name, or reached through its module (`m.f`); with `star`, every module
        this one imports `*` from too, for a plain name no import binds. [] when the run cannot
        load modules, or `func` is TensorFlow's."""
        path_of = getattr(self.context.load_module, "path_of", None)
        if path_of is None:
            return []
        resolved = self.imports.resolve(func) or ""
        if "." in resolved and not resolved.startswith("tensorflow."):
            modules = [tuple(resolved.rsplit(".", 1))]
        elif star and isinstance(func, cst.Name) and not resolved:  # maybe from a `from module import *`
            modules = [(module, func.value) for module in self._star_imported()]
        else:
            return []
        return [(path, name) for path, name in ((path_of(module), name) for module, name in modules)
                if path is not None]

    def _method_owner(self) -> Optional[str]:
        """The name of the top-level class this block's function is a method of (None: not one)."""
        if not isinstance(self.scope, cst.FunctionDef) or self.context.module is None:
            return None
        for stmt in self.context.module.body:
            if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock) and any(
                    member is self.scope for member in stmt.body.body):
                return stmt.name.value
        return None

    def _wrapping_decorator(self, func: cst.BaseExpression) -> Optional[Tuple[str, str]]:
        """(the decorator, "" or " in <file>") when the function `func` names is wrapped by a
        decorator other than staticmethod, classmethod, property, functools' or TensorFlow's:
        defined in this block or at the module's top level, or imported from a module beside this
        one (decorated_calls); else None."""
        if isinstance(func, cst.Name):
            defined = [stmt for stmt in self.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.value]
            function = defined[-1] if defined else self.context.functions.get(func.value)
            if function is not None:
                for decorator in function.decorators:
                    target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else \
                        decorator.decorator
                    if not decorated_calls.plain_resolved(self.imports.resolve(target) or dotted(target) or ""):
                        return _code(decorator.decorator), ""
                return None
        for path, name in self._imported_places(func, star=True):
            if decorated_calls.defines(path, name):
                wrapper = decorated_calls.wrapping_decorator(path, name)
                return (wrapper, " in %s" % os.path.basename(path)) if wrapper is not None else None
        return None

    def _star_imported(self) -> List[str]:
        """The modules this module imports `*` from, at its top level."""
        module = self.context.module
        return [dotted(stmt.body[0].module) for stmt in (module.body if module is not None else ())
                if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.ImportFrom)
                and isinstance(stmt.body[0].names, cst.ImportStar) and stmt.body[0].module is not None
                and not stmt.body[0].relative and not (dotted(stmt.body[0].module) or "").startswith("tensorflow")]

    def _next_element_statements(self, batch_index: int, chain: Set[int]) -> Set[int]:
        """The simple statements before the batch, outside `chain`, that take a queue's or an
        iterator's next element: `x = q.dequeue()`, `_, x = reader.read(q)`, or a call given a
        producer's queue (`image = read_data(queue)`, a helper reading it)."""
        found: Set[int] = set()
        reader_names: Set[str] = set()
        queue_names: Set[str] = set()  # names bound to a producer's queue
        for index in range(batch_index):
            stmt = self.body[index]
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            assign = cstutil.single_assign(stmt)
            if assign and isinstance(assign[0], cst.Name) and _call_with_rule(assign[1], self.imports, PRODUCERS):
                queue_names.add(assign[0].value)
            if assign and isinstance(assign[0], cst.Name) and _call_with_rule(assign[1], self.imports, READERS):
                reader_names.add(assign[0].value)
            if index in chain:
                continue
            read = _read_call(assign[1]) if assign else None
            if any(isinstance(call.func, cst.Attribute) and call.func.attr.value in _NEXT_ELEMENT
                   or any(isinstance(arg.value, cst.Name) and arg.value.value in queue_names for arg in call.args)
                   for call in cstutil.calls_of(stmt)) or bool(read and (
                       read[0] in reader_names or _call_with_rule(read[0], self.imports, READERS))):
                found.add(index)
        return found

    def _check_stateful_captures(self, record_indices, batch_index: int, chain: Set[int], kept, calls,
                                 map_returns: str = "", headers=(), producer_index: Optional[int] = None) -> None:
        """The map function captures what the moved per-record code reads from outside it, by
        value; a one-shot iterator cannot capture a stateful op (a random op, a variable, a
        placeholder, a py_func: TF 1.x fails with "Cannot capture a stateful node"), and the queue
        ran such an op once per record anyway. Refused when a name the moved code (or the header
        of a `with` that moves with it) reads is bound in this block, outside the record path and
        before the batch, by a statement that makes one, or derives from a name that does. The
        batching's other arguments (`batch_size`, `capacity`...) are taken by the dataset when it is
        built: refused too when they read such a name, or a tensor a TensorFlow call made (tf.data
        wants int64 sizes fixed then). So are the producer's (`producer_index`): the tensors a
        slice producer slices become the dataset's own (a preloaded `tf.Variable` fails there)."""
        moved = [index for index in sorted(record_indices) if index not in kept]
        for index in moved:
            looked_up = lookup_tables.lookup_in(self.body[index], self.imports.resolve, self.context.tree)
            if looked_up is not None:
                raise _Broken(calls, lookup_tables.REASON % (
                    "%s(...)" % cst.Module([]).code_for_node(looked_up.func), self._line_of(index)))
            step = next((call for call in cstutil.calls_of(self.body[index])
                         if self.imports.resolve(call.func) in _GLOBAL_STEP_CALLS), None)
            if step is not None:  # `x + tf.cast(tf.train.get_or_create_global_step(), tf.float32)`
                raise _Broken(calls, "the per-record code reads the global step (`%s()`, line %d): in the map "
                              "function it would be looked up or made in the function's own graph, and TF 1.x "
                              "fails to build the dataset (a one-shot iterator captures no variable), where the "
                              "queue's thread read the graph's step for each record" % (
                                  cst.Module([]).code_for_node(step.func), self._line_of(index)))
        reads = set(self.map_copies)  # a copied outer value is read where the function starts
        for index in moved:
            reads |= set(self.uses[index].loads)
        for header in headers:
            reads |= set(cstutil.name_uses(header).loads)
        if map_returns:  # what the map function returns: the batching's tensors, read there too
            try:
                reads |= set(cstutil.name_uses(cst.parse_expression("(%s)" % map_returns)).loads)
            except cst.ParserSyntaxError:
                pass
        stateful: Dict[str, int] = {}  # name -> the statement that makes it from a stateful op
        tensors: Dict[str, int] = {}  # name -> the statement that makes it with a TensorFlow call
        taken: Dict[str, int] = {}  # name -> the statement taking a queue's or iterator's next element
        takes = self._next_element_statements(batch_index, chain)
        chain_loads: Set[str] = set()  # names the chain's statements read so far
        for index in range(batch_index):
            if index in chain:
                # A name the chain binds before reading it is the chain's own from there on (a
                # second pipeline built under the first one's names): not another chain's.
                chain_loads |= set(self.uses[index].loads)
                for name in set(self.uses[index].stores) - chain_loads:
                    taken.pop(name, None)
                    stateful.pop(name, None)
                    tensors.pop(name, None)
                continue
            stmt = self.body[index]
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            resolved = [self.imports.resolve(call.func) or "" for call in cstutil.calls_of(stmt)]
            made = any(name.startswith(_STATEFUL_OPS) for name in resolved)
            made_tensor = any(name.startswith("tensorflow.") and not name.startswith(_PYTHON_VALUED)
                              for name in resolved)
            next_element = index in takes
            derived = set(self.uses[index].loads) & set(stateful)
            derived_tensor = set(self.uses[index].loads) & set(tensors)
            for name in self.uses[index].stores:
                taken.pop(name, None)
                if made or derived:
                    stateful[name] = index
                else:
                    stateful.pop(name, None)
                if made_tensor or derived_tensor:
                    tensors[name] = index
                else:
                    tensors.pop(name, None)
                if next_element:
                    taken[name] = index
        self.captured_reads = tuple(sorted({taken[name] for name in reads & set(taken)}))
        self._check_stateful_attributes(moved, map_returns, calls, producer_index)
        arguments = self._batching_argument_reads(batch_index)
        moved_loads = Counter()
        for index in moved:
            moved_loads.update(self.uses[index].loads)
        for header in headers:
            moved_loads.update(cstutil.name_uses(header).loads)
        self._check_captured_params(reads | arguments, calls, arguments, moved_loads, map_returns)
        sliced = sorted(set(self.uses[producer_index].loads) & set(stateful)) if producer_index is not None else []
        if sliced:  # `slice_input_producer([images_var, labels_var])`: data preloaded into variables
            raise _Broken(calls, "the producer's arguments read `%s`, made at line %d from a stateful op (a variable, "
                          "a placeholder, a random op)%s" % (sliced[0], self._line_of(stateful[sliced[0]]),
                                                             _SLICED_STATEFUL))
        fed = sorted(arguments & set(stateful))
        if fed:  # `batch_size=bs`, bs a placeholder fed at each step
            raise _Broken(calls, "the batching's arguments read `%s`, made at line %d from a stateful op (a "
                          "placeholder fed at each step, a variable, a random op): a one-shot iterator's dataset "
                          "takes them once, by value, which TF 1.x refuses (the queue read them anew for each "
                          "batch); give the batching a Python value" % (fed[0], self._line_of(stateful[fed[0]])))
        sized = sorted(arguments & set(tensors))
        if sized:  # `batch_size=tf.constant(4)`: tf.data wants an int64 value, not the int32 tensor
            raise _Broken(calls, "the batching's arguments read `%s`, a tensor made at line %d: tf.data takes batch "
                          "and buffer sizes as int64 values fixed when the dataset is built, where the queue took "
                          "an int32 tensor; give the batching a Python value" % (
                              sized[0], self._line_of(tensors[sized[0]])))
        changed = self._changed_after(moved, reads, batch_index, chain)
        if changed is not None:  # `parse_single_example(value, spec)`, then `spec['weight'] = ...`
            name, index = changed
            raise _Broken(calls, "the per-record code reads `%s`, which line %d changes in place after it: the map "
                          "function, made where the batch is, would see it changed, where the queue's thread ran "
                          "the per-record ops as they were built" % (name, self._line_of(index)))
        params = _param_names(self.scope) if isinstance(self.scope, cst.FunctionDef) else set()
        made_globally = self._stateful_globals(reads - self.scope_stores - params)
        if made_globally:  # `x - MEAN`, `MEAN = tf.Variable(...)` at the top of the module
            name, line = made_globally[0]
            raise _Broken(calls, "the per-record code reads `%s`, made at line %d at the top of the module from a "
                          "stateful op (a variable, placeholder, random op or py_func): the map function would "
                          "capture it by value, which a one-shot iterator cannot (TF 1.x: \"does not support "
                          "datasets that capture stateful objects\"), where the queue's thread read it for each "
                          "record" % (name, line))
        captured = sorted(reads & set(stateful))
        if captured:
            raise _Broken(calls, "the per-record code reads `%s`, made at line %d from a stateful op (random, "
                          "variable, placeholder or py_func) outside it: the map function would capture it by value, "
                          "which a one-shot iterator cannot (the queue ran it once per record); %s" % (
                              captured[0], self._line_of(stateful[captured[0]]),
                              _stateful_advice(self._resolved_calls(self.body[stateful[captured[0]]]))))
        block_stores = set().union(*(self.uses[index].stores for index in range(len(self.body))))
        outer = self._outer_state(reads - block_stores)
        if outer is not None:
            name, stmt, taken_there = outer
            line = self.context.line_of(stmt) if self.context.line_of else 0
            if taken_there:  # `image = read(image_file)` before `if labels: label = read(...); batch([image, label])`
                raise _Broken(calls, "the per-record code reads `%s`, which line %d, outside this block, takes from "
                              "another queue, reader or iterator, not zipped with this chain: the map function would "
                              "capture that one tensor, where the queue batched each record with its own" % (
                                  name, line))
            raise _Broken(calls, "the per-record code reads `%s`, made at line %d, outside this block, from a stateful "
                          "op (random, variable, placeholder or py_func): the map function would capture it by value, "
                          "which a one-shot iterator cannot (TF 1.x fails when the iterator is made); %s" % (
                              name, line, _stateful_advice(self._resolved_calls(stmt))))

    def _changed_after(self, moved: List[int], reads: Set[str], batch_index: int,
                       chain: Set[int]) -> Optional[Tuple[str, int]]:
        """(name, statement) when a statement that stays, after the first moved one and before the
        batch, changes in place an outer object the moved per-record code reads: a store into an
        item (`x[k] = ...`, `del x[k]`), into an attribute the moved code reads (`x.attr = ...`),
        a method not known to only read called on an object it reads as a value (`x.update(...)`,
        `x.fill(0)`; not `self.load(...)` where it reads `self.read(...)`), or,
        for a dict, list or set made in this block, a function other than TensorFlow's, logging
        or a pure builtin handed it. None otherwise."""
        if not moved:
            return None
        own = set().union(*(self.uses[index].stores for index in moved))
        outer = reads - own - {"True", "False", "None"} - set(self.imports.aliases)
        if not outer:
            return None
        attributes = [node for index in moved for node in cstutil.nodes_of(self.body[index], cst.Attribute)]
        read_attributes = {(node.value.value, node.attr.value) for node in attributes
                           if isinstance(node.value, cst.Name)}
        # Names the moved code reads as values, not only through an attribute (`offset`, not `self`
        # of `self.read(...)`): a method called on those may change what it reads.
        through = {id(node.value) for node in attributes} | {id(node.attr) for node in attributes}
        direct = {node.value for index in moved for node in cstutil.nodes_of(self.body[index], cst.Name)
                  if id(node) not in through}
        containers = {assign[0].value for assign in map(cstutil.single_assign, self.body)
                      if assign and isinstance(assign[0], cst.Name) and _makes_container(assign[1])}
        for index in range(moved[0] + 1, batch_index):
            if index in moved or index in chain:
                continue
            statement = self.body[index]
            changed = set()
            targets = [node.target for node in cstutil.nodes_of(statement, (cst.AssignTarget, cst.AugAssign,
                                                                             cst.AnnAssign))]
            targets += [node.target for node in cstutil.nodes_of(statement, cst.Del)]
            for target in targets:
                for part in ([target] if not isinstance(target, (cst.Tuple, cst.List)) else
                             [element.value for element in target.elements]):
                    if isinstance(part, cst.Subscript):
                        base = part.value
                        while isinstance(base, (cst.Attribute, cst.Subscript)):
                            base = base.value
                        if isinstance(base, cst.Name):
                            changed.add(base.value)
                    elif isinstance(part, cst.Attribute) and isinstance(part.value, cst.Name) \
                            and (part.value.value, part.attr.value) in read_attributes:
                        changed.add(part.value.value)
            for call in cstutil.calls_of(statement):
                if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):
                    if call.func.attr.value not in _READ_ONLY_METHODS and call.func.value.value in direct:
                        changed.add(call.func.value.value)
                    continue
                name = self.imports.resolve(call.func) or dotted(call.func) or ""
                if not (name.startswith("tensorflow.") or name in _LOGGING_CALLS or name in _PURE_BUILTINS):
                    changed |= {arg.value.value for arg in call.args
                                if isinstance(arg.value, cst.Name) and arg.value.value in containers}
            hit = sorted(outer & changed)
            if hit:
                return hit[0], index
        return None

    def _resolved_calls(self, node: cst.CSTNode) -> List[str]:
        return [self.imports.resolve(call.func) or "" for call in cstutil.calls_of(node)]

    def _outer_state(self, names: Set[str]) -> Optional[Tuple[str, cst.SimpleStatementLine, bool]]:
        """(name, the statement, whether it takes a next element) for the first of `names` (read by
        the moved per-record code, bound nowhere in this block) that a statement of the enclosing
        function (or module), outside this block, binds to what a stateful op makes or to another
        queue's, reader's or iterator's next element (a read, a dequeue, get_next, a call given a
        producer's queue or of a function of the module that reads records), or to what derives
        from such a name. Every binding of the scope counts, wherever it is (a block runs after
        the enclosing statements before it, and a loop may run those after it first)."""
        scoped = names & self.scope_stores
        if not scoped:
            return None
        own = {id(stmt) for stmt in self.body}
        statements = [stmt for stmt in cstutil.simple_statements(self.scope) if id(stmt) not in own]
        readers, queues = set(), set()
        for stmt in statements:
            assign = cstutil.single_assign(stmt)
            if assign and isinstance(assign[0], cst.Name) and _call_with_rule(assign[1], self.imports, PRODUCERS):
                queues.add(assign[0].value)
            if assign and isinstance(assign[0], cst.Name) and _call_with_rule(assign[1], self.imports, READERS):
                readers.add(assign[0].value)
        record_functions = set(self.context.record_sources) | set(self.context.reader_helpers)
        facts = []
        for stmt in statements:
            calls_here = list(cstutil.calls_of(stmt))
            uses = cstutil.name_uses(stmt)
            stateful_call = any(name.startswith(_STATEFUL_OPS) for name in self._resolved_calls(stmt))
            takes = any(isinstance(call.func, cst.Attribute) and (
                call.func.attr.value in _NEXT_ELEMENT or call.func.attr.value in ("read", "read_up_to") and (
                    isinstance(call.func.value, cst.Name) and call.func.value.value in readers
                    or _call_with_rule(call.func.value, self.imports, READERS) is not None))
                or isinstance(call.func, cst.Name) and call.func.value in record_functions
                or any(isinstance(arg.value, cst.Name) and arg.value.value in queues for arg in call.args)
                for call in calls_here)
            facts.append((stmt, set(uses.loads), set(uses.stores), stateful_call, takes))
        stateful: Dict[str, cst.SimpleStatementLine] = {}
        taken: Dict[str, cst.SimpleStatementLine] = {}
        changed = True
        while changed:  # what derives from such a name is such a name too
            changed = False
            for stmt, loads, stores, stateful_call, takes in facts:
                makes_state = stateful_call or not loads.isdisjoint(stateful)
                takes_next = takes or not loads.isdisjoint(taken)
                for name in stores:
                    if makes_state and name not in stateful:
                        stateful[name], changed = stmt, True
                    if takes_next and name not in taken:
                        taken[name], changed = stmt, True
        for name in sorted(scoped):
            if name in taken:
                return name, taken[name], True
            if name in stateful:
                return name, stateful[name], False
        return None

    def _stateful_globals(self, names: Set[str]) -> List[Tuple[str, int]]:
        """(name, line) of each of `names` that a top-level statement of the module binds to what a
        stateful call makes (captured_params.makes_stateful), in the order of the names."""
        tree = self.context.tree
        if tree is None or not names:
            return []
        found = {}
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                    and captured_params.makes_stateful(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for part in ast.walk(target):
                        if isinstance(part, ast.Name) and part.id in names:
                            found.setdefault(part.id, node.lineno)
        return sorted(found.items())

    def _other_batching_of(self, name: str, batch_index: int) -> Optional[cst.Call]:
        """Another batching call of the block (a statement's value) that batches `name`, if any."""
        for index, stmt in enumerate(self.body):
            if index == batch_index:
                continue
            found = _call_with_rule(cstutil.statement_value(stmt), self.imports, BATCHERS + JOINERS)
            if found is not None and name in cstutil.name_uses(found[1]).loads:
                return found[1]
        return None

    def _batching_argument_reads(self, batch_index: int) -> Set[str]:
        """The names the batching call's arguments read, but for the tensors it batches (those are
        the records'): `batch_size`, `capacity`, `num_threads`..., which the dataset takes when it is
        built."""
        found = _call_with_rule(cstutil.statement_value(self.body[batch_index]), self.imports, BATCHERS)
        if found is None:
            return set()
        rule, call = found
        reads: Set[str] = set()
        for key, value in rule.bind(call).items():
            if key not in ("tensors", "tensors_list") and isinstance(value, cst.CSTNode):
                reads |= set(cstutil.name_uses(value).loads)
        return reads

    def _check_captured_params(self, reads: Set[str], calls, arguments: Set[str] = frozenset(),
                               moved_loads: Counter = None, map_returns: str = "") -> None:
        """The parameters of the scope function the moved code reads: refused when a call of the
        function in this module, or (after the first pass, self.context.kept_captures) in another
        module of the run, may pass a stateful value for one (captured_params); else they are
        self.captured_params, for the run to check. Those other modules' callers pass as
        functions that draw (self.context.drawn_params) are self.drawn_params, when only the moved
        code reads them (`arguments`: what the batching's other arguments read; `moved_loads`:
        the loads of the moved code, `map_returns` read there too)."""
        self.captured_params = ()
        self.drawn_params = ()
        if not isinstance(self.scope, cst.FunctionDef):
            return
        params = self.scope.params
        positional = [param.name.value for param in list(params.posonly_params) + list(params.params)]
        attrs = self.context.class_attrs(self.scope)
        self_name = attrs.self_name(self.scope) if attrs is not None else None
        if self_name is not None and positional[:1] == [self_name]:
            positional = positional[1:]  # called as `obj.method(...)`: `self` is not passed
        function = self.scope.name.value
        owner = self.context.method_classes.get(id(self.scope))
        if function == "__init__" and owner is not None and self_name is not None:
            function = owner.name.value  # called as `Class(...)`
        found = tuple((function, name, positional.index(name) if name in positional else None)
                      for name in sorted(reads & set(slim_provider.param_names(self.scope)) - {self_name}))
        if not found:
            return
        why = self.context.kept_captures.get(function)
        if why is None and self.context.tree is not None:
            own = captured_params.stateful_bindings(self.context.tree)
            for _, name, position in found:
                call = captured_params.stateful_call(self.context.tree, function, name, position,
                                                     lambda bound: "line %d" % own[bound] if bound in own else None)
                if call is not None:
                    why = captured_params.reason(function, name, "line %d" % call[0], call[1])
                    break
        if why is not None:
            raise _Broken(calls, why)
        self.captured_params = found
        drawn = self.context.drawn_params.get(function, set())
        for _, name, _ in found:
            if name not in drawn:
                continue
            inside = (moved_loads or Counter())[name] + (
                cstutil.name_uses(cst.parse_expression("(%s)" % map_returns)).loads.count(name) if map_returns else 0)
            if name in arguments or name in self.map_copies or self.scope_loads[name] > inside:
                raise _Broken(calls, "the per-record code reads `%s`, a parameter of %s(), for which callers in "
                              "other modules pass a random draw, and code outside it reads `%s` too (the "
                              "batching's arguments, or statements that stay): it would get the function that "
                              "draws" % (name, function, name))
            self.drawn_params += (name,)

    def _check_stateful_attributes(self, moved, map_returns: str, calls,
                                   producer_index: Optional[int] = None) -> None:
        """As _check_stateful_captures, for `self.<attr>` the moved code reads: refused when the
        attribute's one binding (class_attrs) makes a stateful op, or is a parameter of its method
        whose default does (`rotate=tf.random_uniform(...)` in __init__: one tensor, made when the
        class was defined, that every record of the queue ran anew). The producer's arguments
        (`producer_index`) too: what a slice producer slices becomes the dataset's own
        (`self.images = tf.Variable(...)`, data preloaded into a variable)."""
        attrs = self.context.class_attrs(self.scope) if self.scope is not None else None
        self_name = attrs.self_name(self.scope) if attrs is not None else None
        if self_name is None:
            return
        sliced = {node.attr.value for node in cstutil.nodes_of(self.body[producer_index], cst.Attribute)
                  if dotted(node.value) == self_name} if producer_index is not None else set()
        nodes = [node for index in moved for node in cstutil.nodes_of(self.body[index], cst.Attribute)]
        if map_returns:
            try:
                nodes += cstutil.nodes_of(cst.parse_expression("(%s)" % map_returns), cst.Attribute)
            except cst.ParserSyntaxError:
                pass
        for attr in sorted({node.attr.value for node in nodes if dotted(node.value) == self_name} | sliced):
            try:
                binding = attrs.binding(attr)
            except class_attrs.NotProven:
                continue
            made, what = binding.value, "a tensor of a stateful op"
            if isinstance(made, cst.Name):  # a parameter: its default, when the caller passes none
                made = next((param.default for param in binding.method.params.params
                             if param.name.value == made.value and param.default is not None), None)
                what = "the parameter `%s` of %s(), whose default is a tensor of a stateful op" % (
                    binding.value.value, binding.method.name.value)
            stateful = made is not None and any((self.imports.resolve(call.func) or "").startswith(_STATEFUL_OPS)
                                                for call in cstutil.calls_of(made))
            if stateful and attr in sliced:
                raise _Broken(calls, "the producer's arguments read `%s.%s`, bound at line %d to %s (a variable, a "
                              "placeholder, a random op)%s" % (self_name, attr, attrs.line_of(binding.value), what,
                                                                _SLICED_STATEFUL))
            if stateful:
                raise _Broken(calls, "the per-record code reads `%s.%s`, bound at line %d to %s (random, "
                              "variable, placeholder or py_func), made outside it: the map function would capture "
                              "it by value, which a one-shot iterator cannot (the queue ran it once per record); "
                              "make that op in the per-record code" % (
                                  self_name, attr, attrs.line_of(binding.value), what))

    def _check_locals_of_map(self, record_indices, batch_index: int, chain: Set[int], kept, calls,
                             tainted: Set[str] = frozenset(), map_returns: str = "") -> None:
        """Every name the map function binds is a local of it (Python's rule): a name the moved
        per-record code binds that is also bound outside it before the batch (a parameter, or a
        statement that stays, such as `noise = None` before `if c: noise = ...`) would be unbound
        in the function where the code reads it before rebinding it. Allowed when the first
        moved statement to use the name is a plain assignment that binds it without reading it,
        or when the function can start from a copy of the outer value (map_locals: the name is
        then in self.map_copies, Match.map_copies)."""
        moved = [index for index in sorted(record_indices) if index not in kept]
        stores = set()
        for index in moved:
            stores |= self.uses[index].stores
        self.map_copies = ()
        if not stores:
            return
        # name -> where it is bound outside: a parameter's description, or the statement's index
        # (its line is looked up only for the message: positions cost a render of the module).
        outside: Dict[str, Union[str, int]] = {}
        if isinstance(self.scope, cst.FunctionDef):
            for param in slim_provider.param_names(self.scope):
                outside[param] = "a parameter of %s()" % self.scope.name.value
        for index in range(batch_index):
            if index not in chain:
                for name in self.uses[index].stores:
                    outside.setdefault(name, index)
        takes = self._next_element_statements(batch_index, chain) if stores & set(outside) else set()
        for name in sorted(stores & set(outside)):
            first = next(index for index in moved if name in self.uses[index].stores
                         or name in self.uses[index].loads)
            stmt = self.body[first]
            small = cstutil.single_small(stmt)
            if isinstance(small, cst.Assign) and name not in self.uses[first].loads:
                continue
            if isinstance(stmt, cst.For) and name in slim_provider.bound_names(stmt.target) and \
                    name not in cstutil.name_uses(stmt.iter).loads:
                continue  # a loop variable, bound by the loop before its body reads it
            last = max((index for index in range(first) if index not in chain and name in self.uses[index].stores),
                       default=None)
            if last is not None and last in takes:
                # Another chain's record: the function reads it (captured_reads), so this chain is
                # rewritten only zipped with that one, whose read then stands in the function too.
                continue
            why = map_locals.copy_refusal(self, name, first, moved, batch_index, chain, kept, tainted, map_returns)
            if why is None:
                self.map_copies += (name,)
                continue
            raise _Broken(calls, "the per-record code rebinds `%s` (line %d), which is also bound outside it (%s): "
                          "in the map function it would be a name of its own, unbound where the code first reads "
                          "it, and the function cannot start from a copy of the outer value: %s" % (
                              name, self._line_of(first), outside[name] if isinstance(outside[name], str)
                              else "line %d" % self._line_of(outside[name]), why))

    def _batch_in_branches(self, index: int, tainted: Set[str], joined: bool = False):
        """((rule, call) of the if arm, (rule, call) of the else arm) for
        `if c: x = <batch>(...) else: x = <batch>(...)` (or a `return` in each): the batching last in
        each arm, the same targets; else None. `joined`: the arms are batch_joins of several readers' list.

        Simple statements before an arm's batching (`capacity = ...`) stay in the arm, ahead of its
        tail: they run after the dataset's head as they ran after the reader; they must not leave
        the arm early. Those that read or bind a per-record tensor move into the map function, in
        the same `if` (branch_records; `self.branch_records` says how)."""
        stmt = self.body[index]
        self.branch_refusal = None
        self.branch_records = None
        self.branch_fallthrough = False
        self.records_arm = None
        self.own_records = None
        if not isinstance(stmt, cst.If):
            return None
        line = self._line_of(index)
        arm_blocks, tests, fallthrough = if_chain(stmt)
        records_arm = None if joined else self._records_arm(arm_blocks)
        if fallthrough and joined:
            self.branch_refusal = ("the batching is inside an `if` (line %d) without a plain `else`, so some path "
                                   "would batch nothing or batch elsewhere" % line)
            return None
        read_tests = tainted & set().union(*(set(cstutil.name_uses(test).loads) for test in tests))
        if read_tests:
            # a condition on the record itself stays where it is, and so does the batch
            self.branch_refusal = ("the batching is inside an if/else (line %d) whose condition reads the "
                                   "per-record tensor `%s`" % (line, sorted(read_tests)[0]))
            return None
        arms, targets, arm_targets, per_record = [], set(), [], False
        self.batch_later, self.batch_unpacking, self.arm_later = (), (), ()
        for position, block in enumerate(arm_blocks):
            if not (isinstance(block, cst.IndentedBlock) and block.body):
                return None
            if position == records_arm:
                continue
            if records_arm is not None:
                later = self._batch_later(block, tainted, line, index, arm_blocks[records_arm])
            else:
                later = () if fallthrough or joined else self._after_arm_batch(block, tainted, line)
                self.arm_later += (len(later or ()),)
            if later is None:
                return None
            if later:
                block = block.with_changes(body=block.body[:-len(later)])
                if records_arm is not None:
                    self.batch_later = later
            for before in block.body[:-1]:
                uses = cstutil.name_uses(before)
                touched = tainted & (set(uses.loads) | set(uses.stores) | set(uses.mutated))
                per_record = per_record or bool(touched)
                if not isinstance(before, cst.SimpleStatementLine) or uses.control or touched and joined:
                    what = ("uses the per-record tensor `%s`" % sorted(touched)[0] if touched else
                            "is not a simple statement" if not isinstance(before, cst.SimpleStatementLine)
                            else "holds `%s`" % sorted(uses.control)[0])
                    self.branch_refusal = ("the batching is inside an if/else (line %d) where a statement before "
                                           "an arm's batching (line %d) %s" % (line, self.context.line_of(before)
                                                                              if self.context.line_of else 0, what))
                    return None
            small = cstutil.single_small(block.body[-1])
            if isinstance(small, cst.Return) and small.value is not None:
                targets.add("return")
                arm_targets.append(())
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                # the same names however each arm lays them out
                names = towers.target_names(small.targets[0].target)
                targets.add(names or _code(small.targets[0].target))
                arm_targets.append(names)
            else:
                small = None
            found = small is not None and _call_with_rule(small.value, self.imports,
                                                          JOINERS if joined else BATCHERS)
            if not found and not joined and small is not None:  # `batch_join([(a, b)], ...)`: one reader's
                found = joins.one_reader_join(_call_with_rule(small.value, self.imports, JOINERS))
            if not found:
                bucketing = small is not None and _call_with_rule(small.value, self.imports, BUCKETERS)
                early = next((self.context.line_of(before) if self.context.line_of else 0
                              for other in arm_blocks if isinstance(other, cst.IndentedBlock)
                              for before in other.body[:-1]
                              if _call_with_rule(cstutil.statement_value(before), self.imports, BATCHERS)), None)
                self.branch_refusal = (
                    "the batching is inside an if/else (line %d) whose arms bucket by length, which qmigrate "
                    "writes only outside an if/else" % line if bucketing else
                    "the batching is inside an if/else (line %d) where an arm's batching (line %d) is followed by "
                    "other statements of that arm; qmigrate takes an arm's batching only as its last statement, "
                    "bound to the names it batches when another arm batches nothing" % (line, early)
                    if early is not None else
                    "the batching is inside an if/else (line %d) whose arms do not both end in "
                    "`x = <batching call>` or `return <batching call>`" % line)
                return None
            arms.append(found)
        if len(targets) != 1:
            self.branch_refusal = ("the batching is inside an if/else (line %d) whose arms bind the batches to "
                                   "different targets" % line)
            return None
        if fallthrough or records_arm is not None:
            # An arm that batches nothing takes the elements under the batched names when it can
            # (an `else` of simple statements reading only those), else under the names it reads.
            under_batched = records_arm is None or not fallthrough and all(
                isinstance(line_, cst.SimpleStatementLine) for line_ in arm_blocks[records_arm].body)
            refusal = None
            if under_batched:
                refusal = self._fallthrough_refusal(stmt, arms[0], arm_targets[0], "return" in targets, per_record,
                                                    records_arm)
                if refusal is None and records_arm is not None:
                    refusal = self._records_arm_refusal(stmt, arm_blocks[records_arm], arms[0], tainted)
            if records_arm is not None and (refusal is not None or not under_batched):
                refusal = self._own_records_arm(index, arm_blocks, records_arm, arms[0], arm_targets[0], tainted,
                                                fallthrough)
                if refusal is None:  # its per-record code, if any, is the map function's already
                    self.branch_fallthrough, self.records_arm = True, records_arm
                    return tuple(arms)
            self.branch_refusal = refusal
            if refusal is not None:
                return None
            self.branch_fallthrough, self.records_arm = True, records_arm
        if per_record and len(arm_blocks) != 2:
            self.branch_refusal = ("the batching is inside an if/elif (line %d) where a statement before an arm's "
                                   "batching uses a per-record tensor, which qmigrate moves only out of the two "
                                   "arms of an if/else" % line)
            return None
        if per_record and any(self.arm_later):
            # (branch_records reads each arm's per-record code as what precedes its last statement)
            self.branch_refusal = ("the batching is inside an if/else (line %d) whose arms hold per-record code "
                                   "before their batching and statements after it, which qmigrate does not move "
                                   "together" % line)
            return None
        if per_record:
            try:
                self.branch_records = branch_records.arm_records(stmt, tainted, arms, arm_targets, self.scope_loads,
                                                                 self._loads_through(index),
                                                                 self.context.line_of or (lambda node: 0))
            except branch_records.Refused as refused:
                self.branch_refusal = "the batching is inside an if/else (line %d) where %s" % (line, refused)
                return None
        return tuple(arms)

    def _threads_before_branch(self, branch: cst.BaseStatement, batch_call: cst.Call, batching: Batching,
                               calls) -> Batching:
        """The first arm's batching, for the map that takes its threads: that map is made before the
        if/else, where a name an arm binds is not bound yet. Such a name, bound once in the arm to
        an integer literal, is written in as that number; any other refuses the chain."""
        if not batching.num_threads or not isinstance(branch, cst.If):
            return batching
        blocks_of = [block for block in if_chain(branch)[0] if block is not None]
        in_arms = set().union(*(set(cstutil.name_uses(block).stores) for block in blocks_of))
        read = sorted(set(cstutil.name_uses(cst.parse_expression(batching.num_threads)).loads) & in_arms)
        if not read:
            return batching
        name = batching.num_threads.strip()
        arm = next((block for block in blocks_of if any(call is batch_call for call in cstutil.calls_of(block))), None)
        binding = [stmt for stmt in (arm.body if arm is not None else ()) if name in cstutil.name_uses(stmt).stores]
        assigned = cstutil.single_assign(binding[0]) if len(binding) == 1 else None
        if assigned is not None and isinstance(assigned[0], cst.Name) and assigned[0].value == name \
                and isinstance(assigned[1], cst.Integer) \
                and sum(name in cstutil.name_uses(block).stores for block in blocks_of) == 1:
            return dataclasses.replace(batching, num_threads=assigned[1].value)
        raise _Broken(calls, "the batching is inside an if/else whose arm binds `%s`, which its thread count "
                      "reads; the map function that takes those threads is made before the if/else" % read[0])

    def _after_arm_batch(self, block: cst.IndentedBlock, tainted: Set[str], line: int):
        """The statements of an arm after its batching, when every arm batches (`x, y = batch(...)`,
        then `return x, y`): they stay after the iterator's get_next(). () when the batching is
        last; None (refused, self.branch_refusal set) unless they are simple statements, a `return`
        at most and last, that neither batch again nor read or bind a per-record tensor."""
        position = next((at for at, stmt in enumerate(block.body)
                         if _call_with_rule(cstutil.statement_value(stmt), self.imports, BATCHERS)), None)
        if position is None or position == len(block.body) - 1:
            return ()
        later = tuple(block.body[position + 1:])
        for at, stmt in enumerate(later):
            uses = cstutil.scoped_uses(stmt, statement=True)
            stmt_line = self.context.line_of(stmt) if self.context.line_of else 0
            control = set(uses.control) - ({"return"} if at == len(later) - 1 else set())
            if not isinstance(stmt, cst.SimpleStatementLine) or control or any(
                    _call_with_rule(call, self.imports, family) for call in cstutil.calls_of(stmt)
                    for family in (BATCHERS, JOINERS, BUCKETERS)):
                self.branch_refusal = ("the batching is inside an if/else (line %d) where a statement after an arm's "
                                       "batching (line %d) is not a simple one, or batches again" % (line, stmt_line))
                return None
            touched = sorted(tainted & (set(uses.loads) | set(uses.stores) | set(uses.mutated)))
            if touched:
                self.branch_refusal = ("the batching is inside an if/else (line %d) where a statement after an arm's "
                                       "batching (line %d) uses the per-record tensor `%s` (the map function's alone), "
                                       "not the batch" % (line, stmt_line, touched[0]))
                return None
        return later

    def _batch_later(self, block: cst.IndentedBlock, tainted: Set[str], line: int, index: int, records):
        """The statements of a batching arm after its batching `x = <batch>([a, b] + c, ...)`, when
        the other arm batches nothing (() when the batching is last; None, refused, with
        self.branch_refusal set). They stay after the iterator's get_next(), bound to `x` as the
        batch was, a list as it was: simple statements without control flow or batching that read
        no per-record tensor but through `x` (a name they read after binding it themselves is theirs).
        The other arm gets the same list under `x`, unpacked into the batched names."""
        position = next((at for at, stmt in enumerate(block.body)
                         if _call_with_rule(cstutil.statement_value(stmt), self.imports, BATCHERS)), None)
        if position is None or position == len(block.body) - 1:
            return ()
        if len(if_chain(self.body[index])[0]) != 2:
            self.branch_refusal = ("the batching is inside an if/elif (line %d) whose arm goes on after its batching, "
                                   "which qmigrate takes only in the two arms of an if/else" % line)
            return None
        small = cstutil.single_small(block.body[position])
        later = tuple(block.body[position + 1:])
        batch_line = self.context.line_of(block.body[position]) if self.context.line_of else 0
        why = None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)):
            why = "that batching is not bound to one name"
        else:
            name = small.targets[0].target.value
            rule, call = _call_with_rule(small.value, self.imports, BATCHERS)
            chain = batched_lists.parts(rule.bind(call).get("tensors"))
            own, read = {name}, ()
            for stmt in later:
                uses = cstutil.name_uses(stmt)
                if not isinstance(stmt, cst.SimpleStatementLine) or uses.control or any(
                        _call_with_rule(call, self.imports, family) for call in cstutil.calls_of(stmt)
                        for family in (BATCHERS, JOINERS, BUCKETERS)):
                    why = "a statement after it (line %d) is not a simple one, or batches again" % (
                        self.context.line_of(stmt) if self.context.line_of else 0)
                    break
                read = sorted((tainted & set(cstutil.scoped_uses(stmt, statement=True).loads)) - own)
                if read:
                    why = ("a statement after it (line %d) reads the per-record tensor `%s` (the map "
                           "function's alone), not the batch" % (
                               self.context.line_of(stmt) if self.context.line_of else 0, read[0]))
                    break
                own |= _assigned_names(stmt)  # not a comprehension's variables: Python 3 keeps them inside
            if why is None and chain is None:
                why = ("it batches a list that is not a `+` of lists of names (`[a, b] + c`), which the arm "
                       "that batches nothing could not be given under the batched names")
            if why is None and name in tainted | set(batched_lists.names(chain)):
                why = "it is bound to `%s`, a name it batches" % name
            unbound = sorted(set(batched_lists.names(chain)) - own) if why is None else ()
            if unbound:  # the per-record tensor it names is the map function's now
                why = ("the statements after it do not bind `%s`, a name it batches, which that arm would "
                       "leave unbound" % unbound[0])
            if why is None and (self.scope_loads[name] != sum(cstutil.name_uses(stmt).loads.count(name)
                                                               for stmt in later)
                                or any(name in self.uses[other].stores for other in range(len(self.body))
                                       if other != index)
                                or name in set(cstutil.name_uses(records).stores)):
                why = ("it is bound to `%s`, which is also used outside that arm: the arm that batches "
                       "nothing would bind it too" % name)
        if why is None:
            self.batch_unpacking = tuple(batched_lists.unpacking(chain, name))
            return later
        self.branch_refusal = ("the batching is inside an if/else (line %d) whose arm goes on after its "
                               "batching (line %d), and %s" % (line, batch_line, why))
        return None

    def _records_arm(self, arm_blocks) -> Optional[int]:
        """The position of the one arm of an if/else that batches nothing: simple statements (or ifs
        of them) without control flow but a `return` last, and without a call of any batching,
        joining or bucketing (`image = tf.expand_dims(image, 0)`), the other arms each ending in a
        batching or holding one before their last statement (_batch_later). None otherwise."""
        candidates = []
        for position, block in enumerate(arm_blocks):
            if not (isinstance(block, cst.IndentedBlock) and block.body):
                return None
            small = cstutil.single_small(block.body[-1])
            value = small.value if isinstance(small, (cst.Assign, cst.Return)) else None
            if value is not None and _call_with_rule(value, self.imports, BATCHERS):
                continue
            if any(_call_with_rule(cstutil.statement_value(line), self.imports, BATCHERS)
                   for line in block.body[:-1]):
                continue  # batching before its last statement: _batch_later says whether it is taken
            if not all(_simple_or_if(line) for line in block.body):
                return None
            last = block.body[-1]  # a `return` may end it: it returns what it made of the record
            ending = {"return"} if isinstance(cstutil.single_small(last), cst.Return) else set()
            if any(cstutil.name_uses(line).control for line in block.body[:-1]) or set(
                    cstutil.name_uses(last).control) - ending:
                return None
            families = (BATCHERS, JOINERS, BUCKETERS)
            if any(_call_with_rule(call, self.imports, family) for line in block.body
                   for call in cstutil.calls_of(line) for family in families):
                return None
            candidates.append(position)
        return candidates[0] if len(candidates) == 1 and len(arm_blocks) > 1 else None

    def _partial_records(self, names, record_indices, batch_index: int, calls):
        """The map function returns what the arm without batching reads at its end, on every path
        but the batching arm's. A name the per-record code binds only on some paths may be unbound
        there, where the queue's code never read it: taken only when one per-record `if T:` (an
        `else` or none) binds it, in one arm on every path of it, and nowhere else. The map function
        then returns it only where T says it is bound, and the arm takes it only there, testing T
        again: unbound where it was. None when every name is bound on every path; (T's source,
        whether T true binds them, the names) otherwise; _Broken, naming the name and the
        statement, for anything else.

        T is evaluated three times where the queue's code evaluated it once: in the map function
        (the `if` and its return, traced where the dataset is built) and at the arm's start. So T
        calls nothing, and no statement from the `if` up to the batching's `if` binds a name T
        reads; when T reads an attribute, none of them stores one or calls anything but
        TensorFlow either (what could change it)."""
        partial, statement = [], None
        for name in names:
            binding = [index for index in record_indices if name in self.uses[index].stores]
            if not binding or any(_binds_on_every_path(self.body[index], name) for index in binding):
                continue
            why = self._partly_bound_refusal(name, binding, batch_index, record_indices)
            if why is None and statement not in (None, binding[0]):
                why = "another `if` (line %d) binds other names read there" % self._line_of(statement)
            if why is not None:
                raise _Broken(calls, "the batching is inside an if/else (line %d) whose arm that batches "
                              "nothing reads the per-record `%s`, which the per-record code binds only on some "
                              "paths (line %d), and %s" % (self._line_of(batch_index), name,
                                                           self._line_of(binding[0]), why))
            partial.append(name)
            statement = binding[0]
        if not partial:
            return None
        stmt = self.body[statement]
        arms, _, _ = if_chain(stmt)
        when_true = any(_binds_on_every_path(inner, partial[0]) for inner in arms[0].body)
        if any(when_true != any(_binds_on_every_path(inner, name) for inner in arms[0].body) for name in partial):
            raise _Broken(calls, "the batching is inside an if/else (line %d) whose arm that batches nothing reads "
                          "per-record names that the `if` at line %d binds in different arms"
                          % (self._line_of(batch_index), self._line_of(statement)))
        if len(partial) == len(names):
            raise _Broken(calls, "the batching is inside an if/else (line %d) whose arm that batches nothing reads "
                          "only per-record names that the `if` at line %d binds on some paths: it would take "
                          "nothing on the others" % (self._line_of(batch_index), self._line_of(statement)))
        return self.source_of(stmt.test), when_true, tuple(partial)

    def _partly_bound_refusal(self, name: str, binding, batch_index: int, record_indices) -> Optional[str]:
        """Why `name`, bound by the per-record statements `binding` only on some paths, cannot be
        returned under the test that binds it (None: it can; see _partial_records). The arm tests
        again outside the map function, so the test reads nothing the per-record code binds."""
        stmt = self.body[binding[0]]
        if len(binding) != 1 or not isinstance(stmt, cst.If):
            return "not in one `if` alone"
        arms, tests, _ = if_chain(stmt)
        if len(tests) != 1:
            return "that `if` has an `elif`"
        bound_in = [any(_binds_on_every_path(inner, name) for inner in arm.body) for arm in arms]
        stored_in = [any(name in cstutil.name_uses(inner).stores for inner in arm.body) for arm in arms]
        if bound_in.count(True) != 1 or stored_in.count(True) != 1:
            return "not by one arm of that `if` on every path of it"
        test = tests[0]
        if not branch_records.calls_nothing(test):
            return "that `if`'s test calls a function, which would be called again"
        reads = set(cstutil.name_uses(test).loads)
        own = sorted(reads & set().union(*(self.uses[index].stores for index in record_indices)))
        if own:
            return "that `if`'s test reads `%s`, which the per-record code binds (the map function's alone)" % own[0]
        between = range(binding[0] + 1, batch_index)
        rebound = sorted(reads & set().union(*(self.uses[index].stores for index in between)))
        if rebound:
            return "`%s`, which that `if`'s test reads, is bound again before the batching" % rebound[0]
        if cstutil.nodes_of(test, (cst.Attribute, cst.Subscript)) and any(
                self._may_change_objects(index) for index in between):
            return "that `if`'s test reads an attribute, which a statement before the batching may change"
        return None

    def _may_change_objects(self, index: int) -> bool:
        """Statement `index` stores into an attribute or item (`uses[index].mutated`), augments
        anything (`x += [...]` extends a list in place), or calls something not TensorFlow's."""
        statement = self.body[index]
        if self.uses[index].mutated or cstutil.nodes_of(statement, (cst.AugAssign,)):
            return True
        return any(not (self.imports.resolve(call.func) or "").startswith("tensorflow.")
                   for call in cstutil.calls_of(statement))

    def _loads_through(self, index: int) -> Counter:
        """The loads of the block's statements up to `index` and in it: the scope's others are
        taken to come after it (loads in enclosing blocks before this one count as after too,
        which only refuses more)."""
        through = Counter()
        for at in range(index + 1):
            through.update(self.uses[at].loads)
        return through

    def _own_records_arm(self, index: int, arm_blocks, records_arm: int, arm, target_names, tainted: Set[str],
                         fallthrough: bool) -> Optional[str]:
        """Why the arm of an if/else that batches nothing cannot take the dataset's elements under
        the per-record names it reads (None: it can, and self.own_records holds those names, the
        batching arm's per-record statements and the ids of those that leave it). The map function
        then returns, per arm, what that arm takes (branch_records.records_arm_if).

        Contract: two arms (an `else`, or an `elif` and no `else`); the batching last in its arm;
        conditions that call nothing (the map function evaluates them again where it is traced,
        just before the `if`); a per-record name read after the `if` only when every path binds
        it there: the batching arm as its batch's target (or by returning), the other arm by
        taking it or assigning it, and no path runs neither arm."""
        stmt = self.body[index]
        line = self._line_of(index)
        records = arm_blocks[records_arm]
        where = "the batching is inside an if/else (line %d) whose arm at line %d batches nothing, and " % (
            line, self.context.line_of(records) if self.context.line_of else 0)
        if len(arm_blocks) != 2:
            return where + "more than one other arm"
        if self.batch_later:
            return where + "the batching arm goes on after its batching"
        names = []
        for statement in records.body:
            for name in cstutil.scoped_uses(statement, statement=True).loads:
                if name in tainted and name not in names:
                    names.append(name)
        if not names:
            return where + "it reads no per-record tensor"
        if not all(branch_records.calls_nothing(test) for test in if_chain(stmt)[1]):
            return where + "a condition calls a function, which the map function would call again"
        through = self._loads_through(index)
        batching = arm_blocks[1 - records_arm]
        returns = isinstance(cstutil.single_small(batching.body[-1]), cst.Return)
        bound = set(names).union(*(cstutil.name_uses(statement).stores for statement in records.body))
        for name in sorted(tainted):
            if self.scope_loads[name] > through[name] and (
                    fallthrough or name not in bound or not (returns or name in target_names)):
                return where + "the per-record `%s` is read after it, where %s would leave it unbound" % (
                    name, "a path that runs neither arm" if fallthrough else
                    "the arm that batches nothing" if name not in bound else "the batching arm")
        try:
            moved, statements = branch_records.batching_arm_records(
                batching, arm, tainted, target_names, self.scope_loads, through, stmt,
                self.context.line_of or (lambda node: 0))
        except branch_records.Refused as refused:
            return "the batching is inside an if/else (line %d) where %s" % (line, refused)
        self.own_records = (tuple(names), statements, moved)
        return None

    def _records_arm_refusal(self, stmt: cst.If, block: cst.IndentedBlock, arm, tainted: Set[str]) -> Optional[str]:
        """Why the arm that batches nothing cannot take the dataset's elements under the batched
        names (None: it can): it reads a per-record name the batching does not take, which the map
        function holds; or it binds one, which the batching arm would then leave unbound."""
        rule, call = arm
        tensors = rule.bind(call).get("tensors")
        chain = batched_lists.parts(tensors)
        batched = set(batched_lists.names(chain)) if chain is not None else {
            e.value.value for e in tensors.elements if isinstance(e.value, cst.Name)}
        # a comprehension's own variables are its scope's, not the per-record names they shadow
        loads = set().union(*(set(cstutil.scoped_uses(line, statement=True).loads) for line in block.body))
        missing = sorted((tainted & loads) - batched)
        stored = sorted((tainted & set().union(*(_assigned_names(line) for line in block.body))) - batched)
        if stored and not missing:
            return ("the batching is inside an if/else (line %d) whose arm that batches nothing binds the per-record "
                    "name `%s`, which the batching does not take: the arm that batches would leave it unbound"
                    % (self.context.line_of(stmt) if self.context.line_of else 0, stored[0]))
        if not missing:
            return None
        return ("the batching is inside an if/else (line %d) whose arm that batches nothing reads the per-record "
                "tensor `%s`, which the batching does not take: it would be the map function's alone"
                % (self.context.line_of(stmt) if self.context.line_of else 0, missing[0]))

    def _fallthrough_refusal(self, stmt: cst.If, arm, target_names, returns: bool, per_record: bool,
                             records_arm: Optional[int] = None) -> Optional[str]:
        """Why an `if`/`elif` without `else` (or with one arm batching nothing, `records_arm`), each
        other arm batching, cannot keep its path that batches nothing (None: it can). On that path
        the per-record names stay the record's tensors, one record per run: each arm must bind its
        batch to the very names it batches (`a, b = batch([a, b])`), so that path binds them to the
        dataset's elements as they are."""
        rule, call = arm
        try:
            batched = rule.bind(call).get("tensors")
        except Unsupported as error:  # an arm's batching qmigrate cannot read: its reason
            return str(error)
        names = tuple(e.value.value for e in batched.elements if isinstance(e.value, cst.Name)) if isinstance(
            batched, (cst.List, cst.Tuple)) else ()
        why = None
        if returns:
            why = "its arms return their batches"
        elif per_record:
            why = "a statement before an arm's batching uses a per-record tensor"
        elif self.batch_later:
            pass  # bound to one name, a list as the batch gave it, unpacked on the path batching nothing
        elif not names or len(names) != len(batched.elements) or tuple(target_names) != names:
            why = "an arm binds its batch to other names than the tensors it batches"
        if why is None:
            return None
        where = ("an if/else (line %d) whose arm at line %d batches nothing" % (
            self.context.line_of(stmt), self.context.line_of(if_chain(stmt)[0][records_arm]))
            if records_arm is not None and self.context.line_of else
            "an `if` (line %d) without a plain `else`, so some path batches nothing," % (
                self.context.line_of(stmt) if self.context.line_of else 0))
        return "the batching is inside %s and %s" % (where, why)

    def _arm_batching(self, arm, element_kind, returns, first, calls, record_indices, structures, join=None,
                      loop_element=None):
        """The else arm's batching; it must take the same tensors, and need the same map function
        and per-record stages, as the if arm's, since both arms batch one dataset."""
        rule, call = arm
        bound = rule.bind(call)
        line = self.context.line_of(call) if self.context.line_of else 0
        if join is not None:  # batch_join arms: the same list of the readers' records
            element = self._joined_element(bound.get("tensors_list"), join, calls + (call,),
                                           helpers.literal_truth(bound.get("enqueue_many")) is True)
            element = loop_element or element
        else:
            element = self._element(bound.get("tensors"), calls + (call,), record_indices, structures)
        if element != (element_kind, returns):
            raise _Broken(calls + (call,), "the branches of the if/else batch different tensors (line %d)" % line)
        batching = rule.model(bound, self.source_of, self.imports.resolve)
        # The map keeps the records' order at any parallelism: an arm's thread count (one for a
        # batch_join of one reader) only changes how fast the shared map runs, so the first arm's stands.
        batching = dataclasses.replace(batching, num_threads=first.num_threads)
        for what in ("enqueue_many", "keep_input", "shapes"):
            if getattr(batching, what) != getattr(first, what):
                raise _Broken(calls + (call,), "the branches of the if/else batch with different `%s` (line %d), "
                              "which the dataset they share would need to differ before the branch" % (what, line))
        return batching

    def _control_reason(self, index: int, uses) -> str:
        """Why a statement reading the records with control flow ends the chain: a `return` handing
        them to a function qmigrate does not follow as a batching helper is named with its line."""
        small = cstutil.single_small(self.body[index])
        if isinstance(small, cst.Return) and isinstance(small.value, cst.Call):
            name = dotted(small.value.func)
            if name is not None and not (self.imports.resolve(small.value.func) or "").startswith("tensorflow."):
                return ("its records go to %s() in the return at line %d, a function qmigrate does not follow as "
                        "a batching helper" % (name, self._line_of(index)))
        if isinstance(small, cst.Return):
            return "its records are returned at line %d before any batching" % self._line_of(index)
        return "the per-record code contains `%s`" % sorted(uses.control)[0]

    def _check_no_chain_inside(self, index: int, calls, tainted: Set[str]) -> None:
        """A per-record statement that makes a producer, a reader or a slice producer (a second
        chain in an `if` arm, combined with these records) cannot move into the map function: the
        function would build a queue for every record. _Broken, which names the statement."""
        finder = _CallFinder(self.imports, PRODUCERS + READERS + SLICERS)
        cstutil.walk(self.body[index], finder)
        what = "the if/else" if isinstance(self.body[index], cst.If) else "the statement"
        line_of = self.context.line_of or (lambda node: self._line_of(index))
        iterators = [call for call in cstutil.calls_of(self.body[index])
                     if isinstance(call.func, cst.Attribute) and call.func.attr.value in _ITERATOR_METHODS
                     or (self.imports.resolve(call.func) or "").split(".")[-1] in _ITERATOR_METHODS]
        if iterators and not finder.found:
            raise _Broken(calls + self._later_batchings(index, tainted),
                          "%s at line %d works on the records and also takes elements of a dataset (%s() at line "
                          "%d): in a map function the iterator would be made anew for every record"
                          % (what, self._line_of(index), cst.Module([]).code_for_node(iterators[0].func),
                             line_of(iterators[0])))
        if not finder.found:
            return
        stmt = self.body[index]
        why = zipped_arms.branch_refusal(self.scope, stmt, self.imports) if isinstance(stmt, cst.If) else \
            "the statement would move into the map function, which would make a queue for every record"
        raise _Broken(calls + tuple(finder.calls) + self._later_batchings(index, tainted),
                      "%s at line %d works on the records and also makes another queue chain (%s() at line %d), "
                      "not zipped with this one (%s): build each arm's chains into a dataset (Dataset.zip of the "
                      "arm's chains) by hand"
                      % (what, self._line_of(index), cst.Module([]).code_for_node(finder.calls[0].func),
                         line_of(finder.calls[0]), why))

    def _nested_batch_reason(self, index: int) -> str:
        """Why a statement holding the batching call is not followed, by what the statement is."""
        stmt = self.body[index]
        line = self._line_of(index)
        if isinstance(stmt, cst.If):
            return self.branch_refusal or (
                "the batching is nested inside the if/else at line %d, not the last statement of each arm" % line)
        if isinstance(stmt, (cst.For, cst.While)):
            return "the batching is inside a loop (line %d) that is not a tower loop" % line
        if isinstance(stmt, cst.Try):
            return "the batching is inside a try statement (line %d)" % line
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return "the batching is inside a nested function or class (line %d)" % line
        return ("the batching call is nested in a larger expression (line %d); assign its result to names first"
                % line)

    def _moved_withs(self, record_indices, read_index: int, chain) -> List[cst.With]:
        """The `with`s that move into the map function with the per-record code: those around
        record leaves but not around the read, holding nothing but leaves of the chain."""
        stays = {id(w) for w in self.withs[read_index]}
        around = {id(w): w for index in record_indices for w in self.withs[index] if id(w) not in stays}
        return [w for key, w in around.items()
                if all(index in chain for index, withs in enumerate(self.withs) if any(id(o) == key for o in withs))]

    def _with_header_using(self, name: str) -> Optional[int]:
        """The line of a `with` in the scope whose header reads `name`, if any."""
        finder = _WithHeaders()
        cstutil.walk(self.scope, finder)
        for node in finder.found:
            loads = set()
            for item in node.items:
                loads |= set(cstutil.name_uses(item.item).loads)
            if name in loads:
                return self.context.line_of(node) if self.context.line_of else 0
        return None

    def _earlier_loads(self, name: str, chain) -> int:
        """Loads of `name` that read an earlier binding than the record path's (a parameter the
        record tensor reuses the name of): those before the chain first binds it, when the block is
        the function's own straight-line body and the loading statement defers nothing (a nested
        function or lambda could read the name later)."""
        first = min((index for index in chain if name in self.uses[index].stores), default=None)
        if first is None or not self._straight_body:
            return 0
        return sum(self.uses[index].loads.count(name) for index in range(first)
                   if index not in chain and not _defers(self.body[index]))

    def _later_loads(self, name: str, batch_index: int) -> int:
        """Loads of `name` after a statement that rebinds it, from the batching statement on
        (`features = tf.train.batch(features, ...)`, or `[image, label] = batch` after it): they
        read the batch, or what came after, in a straight-line body (or an arm of an `if` of one:
        it runs once or not at all, and loads after the `if` are not counted here)."""
        if not (self._straight_body or self._straight_arm):
            return 0
        for index in range(batch_index, len(self.body)):
            if name not in self.uses[index].stores:
                continue
            if not (isinstance(self.body[index], cst.SimpleStatementLine)
                    or (index == batch_index and isinstance(self.body[index], cst.If))):
                return 0  # a loop or an arm may bind nothing: later loads could still read the record
            later = range(index + 1, len(self.body))
            # The headers of the `with`s opened after the rebinding (their bodies are leaves, their
            # headers are not): `with open(name) as f:` reads the new binding too.
            opened = {id(w): w for i in later for w in self.withs[i]}
            for kept in self.withs[index]:
                opened.pop(id(kept), None)
            headers = sum(cstutil.name_uses(item.item).loads.count(name)
                          for w in opened.values() for item in w.items)
            return sum(self.uses[i].loads.count(name) for i in later) + headers
        return 0

    def _binding_loads(self, name: str, index: int) -> int:
        """The loads of `name` in the scope that may read the binding statement `index` makes: all
        of them, less, in a block that no loop runs twice, those of the plain statements before it
        (they read an earlier binding) and those after a plain statement of the block that binds
        it again (they read that one): a notebook or script that builds a second pipeline under
        the same names. A statement with a function or lambda in it is never left out (it may run
        later, reading whichever binding is there then), nor one with a generator expression (it
        reads the name when it is iterated)."""
        count = self.scope_loads[name]
        if not self._straight_body:
            return count

        def plain(stmt) -> bool:
            return isinstance(stmt, cst.SimpleStatementLine) and not cstutil.nodes_of(
                stmt, (cst.Lambda, cst.GeneratorExp))

        for earlier in range(index):
            if plain(self.body[earlier]):
                count -= self.uses[earlier].loads.count(name)
        for later in range(index + 1, len(self.body)):
            if plain(self.body[later]) and name in self.uses[later].stores:
                return count - sum(self.uses[after].loads.count(name) for after in range(later + 1, len(self.body)))
        return count

    def _rebound_loads(self, name: str, batch_index: int) -> int:
        """Loads of `name` in the statements after the batching that follow, in their own block, a
        statement binding it again (`for i in ...: lab = values[i]; print(lab)`, a loop's target
        `for lab in values:` for its body): they read that binding, not the record, however the
        blocks around them run."""
        return sum(_loads_after_rebinding(self.body[index], name) for index in range(batch_index + 1, len(self.body)))

    @property
    def _straight_arm(self) -> bool:
        """Whether the block is an arm of an `if` (or `elif`, `else`) standing in the scope
        function's own body (no loop runs it twice)."""
        if not isinstance(self.scope, cst.FunctionDef) or not isinstance(self.scope.body, cst.IndentedBlock) \
                or not self.body:
            return False
        top = self.scope.body.body
        for leaf in blocks.flatten(top, top):
            arm = leaf.original
            while isinstance(arm, cst.If):
                if isinstance(arm.body, cst.IndentedBlock) and arm.body.body and arm.body.body[0] is self.body[0]:
                    return True
                arm = arm.orelse.body if isinstance(arm.orelse, cst.Else) else arm.orelse
                if isinstance(arm, cst.IndentedBlock):
                    return bool(arm.body) and arm.body[0] is self.body[0]
        return False

    @property
    def _straight_body(self) -> bool:
        """Whether the block is the scope function's own body, or the module's (no loop runs it twice)."""
        if not isinstance(self.scope, (cst.FunctionDef, cst.Module)) or not self.body:
            return False
        if isinstance(self.scope, cst.Module):
            top = self.scope.body
        else:
            top = self.scope.body.body if isinstance(self.scope.body, cst.IndentedBlock) else ()
        return any(leaf.original is self.body[0] for leaf in blocks.flatten(top, top))

    def _joined_element(self, tensors_list, join, calls, many: bool = False) -> Tuple[str, str]:
        """batch_join's element: one reader's tuple (or dict), the list comprehension's item (with
        `many`, enqueue_many=True: each of its parts a batch of records, which may be a list)."""
        _, name, kind = join
        if not (isinstance(tensors_list, cst.Name) and tensors_list.value == name):
            raise _Broken(calls, "batch_join's tensors_list is not the list of reader-helper calls itself")
        if kind == "dict":
            return "dict", name
        if kind == "single":  # batch_join of one-tensor lists gives the tensor itself, as batch does
            return "single", "%s[0]" % name
        # A tuple, not a list: tf.data would stack a list returned by the map function into one tensor.
        return "tuple", self._tensor_tuple(name, calls) if many else "tuple(%s)" % name

    def _tensor_tuple(self, name: str, calls) -> str:
        """The map function's return of `name`, the parts a reader helper gives enqueue_many, which
        may be Python lists of records (`images.append(...)`): a tuple, each part that is a list made
        a tensor, as the queue made it (TF 1.8's map returns no list: such a helper's dataset failed
        when it was built)."""
        tf = self._tf_module()
        if tf is None:
            raise _Broken(calls, "the batched tensors `%s` may hold Python lists, which the map function must make "
                          "tensors of, and the module reaches TensorFlow by no name of its own" % name)
        part = self.names.fresh("part")
        return "tuple(%s.convert_to_tensor(%s) if isinstance(%s, list) else %s for %s in %s)" % (
            tf, part, part, part, part, name)

    def _element(self, tensors: Optional[cst.BaseExpression], calls, record_indices,
                 structures) -> Tuple[str, str]:
        """The structure get_next() must return, and the map function's return expression.

        tf.train.batch gives back a dict for a dict, the tensor itself for a list of one, and a list
        otherwise; `_consume` turns a "tuple" element into a list where the batch is kept whole.
        The map function returns a tuple where the code had a list: tf.data would stack a list.
        """
        if isinstance(tensors, cst.Dict):
            values = [e.value for e in tensors.elements if isinstance(e, cst.DictElement)]
            if any(self._may_be_list(value) or self._python_constant(value) for value in values):
                # `{'image': image, 'split': SPLIT}`: each such value made a tensor, as the queue made it
                tensors = tensors.with_changes(elements=[
                    e.with_changes(value=cst.parse_expression(self._as_batched(e.value, calls)))
                    if isinstance(e, cst.DictElement) else e for e in tensors.elements])
            return "dict", self.source_of(tensors)
        if isinstance(tensors, cst.Name):
            return self._named_element(tensors.value, calls, record_indices, structures)
        if isinstance(tensors, (cst.List, cst.Tuple)) and tensors.elements:
            if any(isinstance(element, cst.StarredElement) for element in tensors.elements):
                raise _Broken(calls, "the batched tensors are built with *unpacking")
            sources = [self._as_batched(element.value, calls) for element in tensors.elements]
            if len(sources) == 1:
                # tf.train.batch([t]) returns the tensor itself, not a list of one.
                return "single", sources[0]
            return "tuple", ", ".join(sources)
        literal = batched_lists.literal_count(tensors) if tensors is not None else None
        if literal is not None:  # `[image, label] + grams`: a list, two tensors or more
            if literal < 2:
                raise _Broken(calls, "the batched list `%s` may hold one tensor, which tf.train.batch returns "
                              "itself, not in a list" % self.source_of(tensors))
            return "tuple", "tuple(%s)" % self.source_of(tensors)
        raise _Broken(calls, "the batched tensors are not a literal list, tuple or dict")

    def _as_batched(self, element: cst.BaseExpression, calls) -> str:
        """The map function's return for one batched element: as written, or, when it may be a
        Python list of tensors (`xy[0:-1]` of decode_csv's list, a list display, a name bound to
        decode_csv/split/unstack), `tf.convert_to_tensor(...)` of it: the queue packed such a list
        into one tensor, and TF 1.8's map returns no list inside its element (AttributeError when
        the dataset is built). A tensor it is given it returns as it is."""
        if not self._may_be_list(element) and not self._python_constant(element):
            return self.source_of(element)
        tf = self._tf_module()
        if tf is None:
            raise _Broken(calls, "a batched element, `%s`, may be a Python list of tensors or a Python constant, "
                          "which the map function must make a tensor, and the module reaches TensorFlow by no name "
                          "of its own" % self.source_of(element))
        return "%s.convert_to_tensor(%s)" % (tf, self.source_of(element))

    def _python_constant(self, element: cst.BaseExpression) -> bool:
        """Whether `element` is a Python number or string (`3`, `-1.0`, `'cat'`), or a name this block
        or the module's top level binds to one and to nothing else (`CLASS_ID = 3`): the queue made
        a tensor of it, and TF 1.8's map function returns no Python value (AttributeError when the
        dataset is built)."""
        if isinstance(element, cst.UnaryOperation):
            element = element.expression
        if isinstance(element, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
            return True
        if not isinstance(element, cst.Name):
            return False
        name = element.value
        local = [assign[1] for assign in map(cstutil.single_assign, self.body)
                 if assign and isinstance(assign[0], cst.Name) and assign[0].value == name]
        if local:
            return all(self._python_constant(value) for value in local)
        if isinstance(self.scope, cst.FunctionDef) and name in _param_names(self.scope):
            return False
        tree = self.context.tree
        if tree is None:
            return False
        values = []
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AnnAssign, ast.AugAssign)) else []
            if any(isinstance(sub, ast.Name) and sub.id == name for target in targets for sub in ast.walk(target)):
                values.append(node.value if isinstance(node, ast.Assign) and len(targets) == 1 and isinstance(
                    targets[0], ast.Name) else None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                values.append(None)
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                    (alias.asname or alias.name.split(".")[0]) in (name, "*") for alias in node.names):
                values.append(None)
        return bool(values) and all(_number_or_string(value) for value in values)

    def _may_be_list(self, element: cst.BaseExpression, sliced: bool = False) -> bool:
        """Whether `element` may be a Python list (`sliced`: of what a slice is taken, where only
        what is known to be a tensor, made here by a TensorFlow call that gives one, is not)."""
        if isinstance(element, (cst.List, cst.Tuple, cst.ListComp)):
            return True
        if isinstance(element, cst.Call):
            name = self.imports.resolve(element.func) or ""
            return name in _LIST_MAKERS or (sliced and not name.startswith("tensorflow."))
        if isinstance(element, cst.Subscript):  # a slice of a list is a list; of a tensor, a tensor
            return any(isinstance(part.slice, cst.Slice) for part in element.slice) and self._may_be_list(
                element.value, sliced=True)
        if isinstance(element, cst.Name):
            values = [assign[1] for assign in map(cstutil.single_assign, self.body)
                      if assign and isinstance(assign[0], cst.Name) and assign[0].value == element.value]
            if not values:
                return sliced  # a parameter or an outer name: unknown
            return any(self._may_be_list(value, sliced) if isinstance(value, (cst.List, cst.Tuple, cst.ListComp,
                                                                              cst.Call)) else sliced
                       for value in values)
        return sliced

    def _named_element(self, name: str, calls, record_indices, structures) -> Tuple[str, str]:
        """The element when the batched tensors are a name: a structure the chain or the per-record
        code bound it to, provably; anything else is refused (its structure decides what batch returns)."""
        if self._parsed_dict(name, record_indices):
            return "dict", name
        bindings = [index for index in record_indices if name in self.uses[index].stores]
        dequeued = structures.get("dequeued " + name)
        if dequeued is not None and bindings and bindings[-1] == dequeued[0]:
            # The list a queue helper's dequeue gave back, used by nothing but the batching after.
            later = [index for index in record_indices if index > dequeued[0] and self._may_change(index, name)]
            if later:
                raise _Broken(calls, "the batched list `%s` (line %d) is used again at line %d, which may change "
                              "its length" % (name, self._line_of(dequeued[0]), self._line_of(later[0])))
            kind, count = "list", dequeued[2]
        elif name in structures and not bindings:
            kind, count = structures[name]
        elif len(bindings) == 1:
            kind, count = self._bound_structure(name, bindings[0], record_indices, calls)
        else:
            raise _Broken(calls, "the batched tensors are the name `%s`, %s" % (
                name, "bound more than once by the per-record code" if bindings else
                "whose structure (list, tuple or dict) qmigrate cannot see from here"))
        if kind == "dict":
            return "dict", name
        if count == 0:
            raise _Broken(calls, "the batched tensors `%s` are an empty list" % name)
        if count == 1:
            return "single", "%s[0]" % name
        # A slice producer's outputs arrive as one tuple parameter already.
        return "tuple", name if kind == "sliced" else "tuple(%s)" % name

    def _may_change(self, index: int, name: str) -> bool:
        """Whether statement `index` reads the list `name` in a way that may change it: any read
        but passing it to a logging call (`tf.logging.info(x)`, `print(x)`), which only formats it."""
        if name not in self.uses[index].loads:
            return False
        value = cstutil.statement_value(self.body[index])
        if not (isinstance(cstutil.single_small(self.body[index]), cst.Expr) and isinstance(value, cst.Call)):
            return True
        resolved = self.imports.resolve(value.func)
        if resolved is None and dotted(value.func) == "print" and "print" not in self.scope_stores:
            resolved = "print"  # the builtin, not rebound here
        if resolved not in _LOGGING_CALLS:
            return True
        # The name itself, passed whole as an argument: nothing else reads it there.
        direct = sum(1 for arg in value.args if isinstance(arg.value, cst.Name) and arg.value.value == name)
        return direct != self.uses[index].loads.count(name)

    def _bound_structure(self, name: str, binding: int, record_indices, calls) -> Tuple[str, int]:
        """("dict", 0) or ("list", n) for `name = {...}` / `dict(...)` / `[a, b]` / `(a, b)` in the
        per-record code. A list or tuple must not be touched after (an append would change its length)."""
        assign = cstutil.single_assign(self.body[binding])
        line = self._line_of(binding)
        value = assign[1] if assign is not None and isinstance(assign[0], cst.Name) else None
        if _makes_dict(value, self.context.module_names) or self._returns_dict(value):
            return "dict", 0
        if isinstance(value, (cst.List, cst.Tuple)):
            if any(isinstance(element, cst.StarredElement) for element in value.elements):
                raise _Broken(calls, "the batched list `%s` (line %d) is built with *unpacking" % (name, line))
            later = [index for index in record_indices if index > binding and self._may_change(index, name)]
            if later:
                raise _Broken(calls, "the batched list `%s` (line %d) is used again at line %d, which may change "
                              "its length" % (name, line, self._line_of(later[0])))
            return "list", len(value.elements)
        returned = self._returned_literal(value)
        if returned is not None:  # a call of the module's function that returns a literal list or tuple
            later = [index for index in record_indices if index > binding and name in self.uses[index].loads]
            if not later:
                return "list", len(returned.elements)
        family = self._dispatched_kind(value)
        if family is not None and not [index for index in record_indices
                                       if index > binding and name in self.uses[index].loads]:
            # a family's methods (dispatched_readers), each returning a literal of one kind; a tuple's
            # length may differ by class, and is above one in each: the element is the tuple
            return ("dict", 0) if family == "dict" else ("list", 1) if family == "single" else ("list", 2)
        raise _Broken(calls, "the batched tensors are the name `%s`, bound at line %d to something other than a "
                      "literal list, tuple or dict, so the structure tf.train.batch would give back is unknown"
                      % (name, line))

    def _dispatched_kind(self, value) -> Optional[str]:
        """What a family's methods return ("dict", "single", "tuple": dispatched_readers) when
        `value` is `obj.method(...)` of such a family; None otherwise."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name)):
            return None
        found = self.context.dispatched.get(value.func.attr.value)
        return found[2] if found is not None else None

    def _returned_literal(self, value) -> Optional[cst.BaseExpression]:
        """The literal list or tuple (no *unpacking) a call of one of the module's functions (or
        reader helpers) returns as its last statement, else None."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                and value.func.value not in self.scope_stores):
            return None
        helper = self.context.reader_helpers.get(value.func.value)
        function = helper.function if helper is not None else self.context.functions.get(value.func.value)
        returned = _only_return(function) if function is not None else None
        if isinstance(returned, (cst.List, cst.Tuple)) and returned.elements and not any(
                isinstance(element, cst.StarredElement) for element in returned.elements):
            return returned
        return None

    def _returns_dict(self, value) -> bool:
        """Whether `value` calls a function of this module that returns a dict on every path: each
        `return` gives a dict literal, `dict(...)`, or a local only ever bound to one of those."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                and value.func.value not in self.scope_stores):
            return False
        function = self.context.functions.get(value.func.value)
        if function is None or not isinstance(function.body, cst.IndentedBlock):
            return False
        finder = _Returns()
        cstutil.walk(function.body, finder)
        if finder.yields or not finder.returns:
            return False
        last = function.body.body[-1]
        if not isinstance(cstutil.single_small(last), cst.Return):
            return False  # falling off the end returns None
        names = self.context.module_names
        for returned in finder.returns:
            if _makes_dict(returned, names):
                continue
            if not isinstance(returned, cst.Name):
                return False
            bindings = finder.bindings.get(returned.value, [])
            if not bindings or not all(_makes_dict(bound, names) for bound in bindings):
                return False
        return True

    def _line_of(self, index: int) -> int:
        return self.context.line_of(self.body[index]) if self.context.line_of else 0

    def _static_shapes(self, batching, returns: str, element_kind: str, calls) -> Tuple[Tuple[str, str], ...]:
        """(name, shape) for each batched tensor whose shape `shapes=` declared: the queue set them
        on its components; the map function sets them on what it returns."""
        if not batching.shapes:
            return ()
        names = [part.strip() for part in returns.split(",")] if element_kind != "dict" else _dict_values(returns)
        # A name, or an item of one (`rows[2]`, a slice producer's output list): the same tensor
        # object each time it is read, so its set_shape() holds for what the function returns.
        if batching.enqueue_many or len(names) != len(batching.shapes) or not all(
                _SHAPED.match(n) for n in names):
            raise _Broken(calls, "it sets `shapes=` for tensors that are not plain names (or with enqueue_many); "
                          "assign each batched tensor to a name first")
        return tuple(zip(names, batching.shapes))

    def _parsed_dict(self, name: str, record_indices) -> bool:
        """Whether the per-record code binds `name` once, to the dict of parse_single_example, or to
        one of the two dicts parse_single_sequence_example gives (`context, sequence = ...`)."""
        bindings = [index for index in record_indices if name in self.uses[index].stores]
        if len(bindings) != 1:
            return False
        assign = cstutil.single_assign(self.body[bindings[0]])
        if assign is None or not isinstance(assign[1], cst.Call):
            return False
        target, parser = assign[0], self.imports.resolve(assign[1].func)
        if isinstance(target, cst.Name):
            return parser in _DICT_PARSERS
        return (parser in _DICT_PAIR_PARSERS and isinstance(target, (cst.Tuple, cst.List))
                and len(target.elements) == 2
                and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements))

    def _fresh_local(self, preferred: str, *texts) -> str:
        """A lambda parameter name that shadows nothing the lambda's body or its scope reads."""
        name, n = preferred, 2
        taken = self.scope_loads.keys() | self.scope_stores
        while name in taken or any(re.search(r"\b%s\b" % name, str(text)) for text in texts):
            name, n = "%s_%d" % (preferred, n), n + 1
        return name


# TensorFlow ops whose result a one-shot iterator's map function cannot capture by value.
# Why a producer whose arguments read a stateful op stays (the end of its reason).
_SLICED_STATEFUL = (": the dataset would hold it, and a one-shot iterator cannot capture it (TF 1.x: \"Cannot capture "
                    "a stateful node\"), where the queue's thread read it when it ran; build the dataset from the "
                    "values the variable is made from by hand (a placeholder fed to an initializable iterator's "
                    "initializer)")

_STATEFUL_OPS = record_draws.RANDOM_OPS + tuple("tensorflow." + name for name in (
    "placeholder", "Variable", "get_variable", "py_func", "train.get_global_step",
    "train.get_or_create_global_step", "train.create_global_step"))

# Libraries of plain values whose functions make no TensorFlow op (per-record code that calls
# them draws nothing from TensorFlow's seeds).
_VALUE_LIBRARIES = frozenset(("numpy", "math", "os", "re", "six", "string", "collections", "functools", "itertools",
                              "json", "random", "sys", "operator", "copy", "builtins"))

# Builtins that read their arguments and change none of them.
_PURE_BUILTINS = frozenset(("len", "str", "repr", "int", "float", "bool", "tuple", "list", "dict", "set", "sorted",
                            "isinstance", "min", "max", "sum", "range", "enumerate", "zip", "format", "abs", "round",
                            "any", "all", "hasattr", "getattr", "type", "id", "hash", "iter"))

# Methods known to only read their object (strings, dicts, configs, numpy arrays, tensors): any
# other method called on an object may change it.
_READ_ONLY_METHODS = frozenset((
    "get", "keys", "values", "items", "copy", "format", "split", "rsplit", "splitlines", "join", "strip", "lstrip",
    "rstrip", "startswith", "endswith", "lower", "upper", "replace", "count", "index", "find", "rfind", "encode",
    "decode", "isdigit", "astype", "reshape", "tolist", "tobytes", "sum", "mean", "min", "max", "any", "all",
    "getint", "getfloat", "getboolean", "has_section", "has_option", "sections", "options", "get_shape",
    "as_list", "eval", "numpy"))


def _makes_container(value: cst.BaseExpression) -> bool:
    """Whether an assigned value is a dict, list or set made here (a display, a comprehension,
    `dict(...)`, `list(...)`, `set(...)`)."""
    if isinstance(value, (cst.Dict, cst.List, cst.Set, cst.DictComp, cst.ListComp, cst.SetComp)):
        return True
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in (
        "dict", "list", "set", "OrderedDict", "defaultdict")

# The calls that give the graph's global step: a map function would look for it (or make it) in
# its own graph.
_GLOBAL_STEP_CALLS = frozenset("tensorflow." + name for name in (
    "train.get_global_step", "train.get_or_create_global_step", "train.create_global_step",
    "contrib.framework.get_global_step", "contrib.framework.get_or_create_global_step",
    "contrib.framework.create_global_step"))

# TensorFlow calls that give Python values (file names, counts, flags), not tensors.
_PYTHON_VALUED = ("tensorflow.gfile.", "tensorflow.io.gfile.", "tensorflow.python_io.", "tensorflow.app.",
                  "tensorflow.flags.", "tensorflow.logging.", "tensorflow.contrib.slim.parallel_reader.get_data_files")


def _number_or_string(value: Optional[ast.AST]) -> bool:
    """Whether a stdlib expression is a number or string literal (signed, for numbers)."""
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    return isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str)) and not isinstance(
        value.value, bool)


def _dict_values(returns: str) -> List[str]:
    """The values of a literal dict with literal string keys, in the order of sorted keys (the order
    in which TensorFlow flattens a dict of tensors and reads its `shapes=`); [] for anything else."""
    node = cst.parse_expression(returns)
    if not isinstance(node, cst.Dict) or not all(
            isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) for e in node.elements):
        return []
    pairs = sorted((e.key.evaluated_value, _code(e.value)) for e in node.elements)
    return [value for _, value in pairs]
def _makes_dict(value, module_names) -> bool:
    """A dict literal, or a call of the builtin dict (not shadowed at module level)."""
    return isinstance(value, cst.Dict) or (isinstance(value, cst.Call) and dotted(value.func) == "dict"
                                           and "dict" not in module_names)


class _Returns(cst.CSTVisitor):
    """A function body's return values and what its names are bound to (nested functions skipped);
    a name bound any other way (a loop, a with, an augmented assignment) gets None, never a dict."""

    def __init__(self):
        self.returns, self.yields, self.bindings = [], False, {}

    def visit_FunctionDef(self, node) -> bool:
        return False

    visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node.value)

    def visit_Yield(self, node) -> None:
        self.yields = True

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def _bind(self, target, value) -> None:
        if isinstance(target, cst.Name):
            self.bindings.setdefault(target.value, []).append(value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, None)
        # `d[k] = v` / `d.x = v` store into an object and rebind no name: a dict stays a dict.

    def visit_AugAssign(self, node) -> None:
        self._bind(node.target, None)

    def visit_AnnAssign(self, node) -> None:
        self._bind(node.target, node.value)

    def visit_For(self, node) -> None:
        self._bind(node.target, None)

    def visit_AsName(self, node) -> None:
        self._bind(node.name, None)


def _only_return(function: cst.FunctionDef) -> Optional[cst.BaseExpression]:
    """What the function returns when its last statement (or a `with`'s that ends it) is its one
    `return` and it yields nothing; else None (another path may return another structure)."""
    finder = _Returns()
    cstutil.walk(function.body, finder)
    if finder.yields or len(finder.returns) != 1:
        return None
    return helpers.returned(function)


class _WithHeaders(cst.CSTVisitor):
    def __init__(self):
        self.found: List[cst.With] = []

    def visit_With(self, node: cst.With) -> None:
        self.found.append(node)


class _Deferring(cst.CSTVisitor):
    def __init__(self):
        self.found = False

    def visit_FunctionDef(self, node) -> bool:
        self.found = True
        return False

    visit_Lambda = visit_ClassDef = visit_FunctionDef


def _defers(stmt: cst.CSTNode) -> bool:
    """Whether the statement holds code that runs later (a def, a class, a lambda)."""
    finder = _Deferring()
    cstutil.walk(stmt, finder)
    return finder.found


# Calls that format their arguments and keep no reference to them (_BlockRecogniser._may_change).
_LOGGING_CALLS = frozenset(["print"] + ["tensorflow.logging.%s" % level for level in (
    "debug", "info", "warn", "warning", "error", "fatal", "log", "vlog")] + ["logging.%s" % level for level in (
        "debug", "info", "warning", "error", "critical", "log")])

_ITERATOR_METHODS = ("make_one_shot_iterator", "make_initializable_iterator")
_NEXT_ELEMENT = ("dequeue", "dequeue_many", "dequeue_up_to", "get_next")
_DICT_PARSERS = ("tensorflow.parse_single_example", "tensorflow.io.parse_single_example")
# TensorFlow calls that give a Python list of tensors.
_LIST_MAKERS = frozenset(("tensorflow.decode_csv", "tensorflow.io.decode_csv", "tensorflow.split", "tensorflow.unstack",
                          "tensorflow.unpack"))
# Parsers that give two dicts of tensors: (context features, sequence features).
_DICT_PAIR_PARSERS = ("tensorflow.parse_single_sequence_example", "tensorflow.io.parse_single_sequence_example")


def _summary_refusal(summary: bool, call: cst.Call) -> Tuple[str, Optional[Tuple[type, cst.Call]]]:
    """What a refusal for state the per-record code makes adds when that state is a summary: the
    unsafe fix that migrates it, and its finding (QM910) on the per-record call; nothing else."""
    if not summary:
        return "", None
    return "; `--unsafe` migrates it, the summary made in the map function's graph, where nothing reads it", (
        LostSummary, call)


def _stateful_advice(resolved: List[str]) -> str:
    """What to do with a stateful value the per-record code reads from outside it, by the calls
    (resolved names) of the statement that makes it."""
    if any(name in graph_state.VARIABLES or name in _GLOBAL_STEP_CALLS for name in resolved):
        return ("read it after the batching, on the batch, instead (a one-shot iterator's map function can neither "
                "capture a variable nor make one)")
    if "tensorflow.placeholder" in resolved:
        return ("a one-shot iterator takes no fed value: give the per-record code a Python value, or feed the "
                "placeholder to an initializable iterator by hand")
    return ("move that statement into the per-record code (the map function then runs it once per record, as the "
            "queue did)")


def _state_clause(kind: str) -> Tuple[str, str]:
    """(what a call of graph_state's kind_of makes, what that does in a map function) for a reason."""
    if kind == "variable":
        return "a variable", "in the map function it would be made in the function's graph, which a one-shot " \
                             "iterator cannot capture"
    if kind == "graph-only":
        return "an op only the program's graph can run", "in the map function it would be made in the function's " \
                                                         "graph, where it fails when it runs"
    return "a summary or collection entry", "in the map function it would be made in the function's graph, so the " \
                                            "program's summaries and collections would no longer hold it"


def _loads_after_rebinding(stmt: cst.BaseStatement, name: str, bound: bool = False) -> int:
    """The loads of `name` in `stmt` that read a binding made before them in the same block: all
    of them when `bound` (an earlier statement of the block bound it), else those after a simple
    statement of a nested block that binds it, and in the body of a `for` whose target does
    (with that target, which name_uses counts as a load)."""
    if bound:
        return cstutil.name_uses(stmt).loads.count(name)
    if isinstance(stmt, cst.SimpleStatementLine):
        return 0
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return 0  # its own scope
    targets = [node for node in cstutil.nodes_of(stmt.target, cst.Name) if node.value == name] if isinstance(
        stmt, cst.For) else []
    loop_bound = bool(targets)
    count = len(targets)  # name_uses counts a loop's target among the loads
    for node in cstutil.children(stmt, tokens=False):
        if isinstance(node, cst.IndentedBlock):
            count += _block_loads_after_rebinding(node.body, name, loop_bound and node is stmt.body)
        elif isinstance(node, (cst.Else, cst.ExceptHandler, cst.Finally)) and isinstance(node.body, cst.IndentedBlock):
            count += _block_loads_after_rebinding(node.body.body, name, False)
        elif isinstance(node, cst.If):  # elif
            count += _loads_after_rebinding(node, name)
    return count


def _block_loads_after_rebinding(statements, name: str, bound: bool) -> int:
    count = 0
    for stmt in statements:
        count += _loads_after_rebinding(stmt, name, bound)
        if not bound and isinstance(stmt, cst.SimpleStatementLine) and name in cstutil.name_uses(stmt).stores:
            bound = True
    return count


def _leaves_of(match: Match) -> Set[int]:
    """The leaves a match takes, less a whole-file reader it shares (see _check_shared_readers)."""
    shared = {match.shared_reader[0]} if match.shared_reader else set()
    return (set(match.removed_indices) - shared) | set(match.record_indices) | {match.read_index, match.batch_index}


def _drop_joined(result: BlockResult, fresh) -> None:
    """Pipelines that share a statement (records of two readers batched together) are not
    separate pipelines: those combined per record and batched by one call become one zipped
    pipeline (zipped_chains); any other is not rewritten, each of its chains reported."""
    joined = [m for m in result.matches if any(o is not m and _leaves_of(o) & _leaves_of(m) for o in result.matches)]
    groups: List[List[Match]] = []
    for match in joined:  # chains linked by shared statements, transitively
        linked = [group for group in groups if any(_leaves_of(o) & _leaves_of(match) for o in group)]
        merged = [match] + [m for group in linked for m in group]
        groups = [group for group in groups if group not in linked] + [merged]
    for group in groups:
        for match in group:
            result.matches.remove(match)
        zipped = zipped_chains.merge(group, fresh)
        if not isinstance(zipped, str):
            result.matches.append(zipped)
            continue
        for match in group:
            result.failures.append(Failure(match.calls, "records of several readers meet in one statement (one "
                                           "batch of two reads) and cannot be zipped: %s" % zipped))


def _helper_arms(stmt, variable: str, reader_helpers) -> List[helpers.ReaderHelper]:
    """The reader helpers bound to `variable` by `if a: variable = h1` / `elif b: variable = h2`
    (/ `else: ...`), one per arm, each arm that one assignment; [] for any other statement."""
    if not isinstance(stmt, cst.If):
        return []
    found, node = [], stmt
    while node is not None:
        body = node.body
        assign = cstutil.single_assign(body.body[0]) if isinstance(body, cst.IndentedBlock) and len(
            body.body) == 1 else None
        if not (assign and isinstance(assign[0], cst.Name) and assign[0].value == variable
                and isinstance(assign[1], cst.Name) and assign[1].value in reader_helpers):
            return []
        found.append(reader_helpers[assign[1].value])
        node = node.orelse if isinstance(node, cst.If) else None  # an `else:` arm is the last
    return found


def _all_or_none(result: BlockResult, key: Callable, expected: Callable[[str], int], reason: str) -> List[List[Match]]:
    """Matches that share something (`key(match)`, falsy for none) are kept only when there are
    `expected(key)` of them; otherwise each goes, its calls told `reason % (key, expected)`.
    Returns the groups kept."""
    groups: Dict[str, List[Match]] = {}
    for match in result.matches:
        if key(match):
            groups.setdefault(key(match), []).append(match)
    kept = []
    for name, matches in groups.items():
        count = expected(name)
        if len(matches) == count:
            kept.append(matches)
            continue
        for match in matches:
            result.matches.remove(match)
        result.failures.append(Failure(tuple(call for match in matches for call in match.calls), reason % (name, count)))
    return kept


class _NameCounts(cst.CSTVisitor):
    """How often a scope names `variable`: in all (attribute names aside), as an assignment's
    whole target, and as the function a call calls."""

    def __init__(self, variable: str):
        self.variable = variable
        self.names = self.bound = self.called = 0

    def visit_Name(self, node: cst.Name) -> None:
        self.names += node.value == self.variable

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        cstutil.walk(node.value, self)  # `x.variable` names an attribute, not the variable
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bound += isinstance(node.target, cst.Name) and node.target.value == self.variable

    def visit_Call(self, node: cst.Call) -> None:
        self.called += isinstance(node.func, cst.Name) and node.func.value == self.variable


class _ReplaceByIdentity(cst.CSTTransformer):
    def __init__(self, replacements):
        self.replacements = replacements  # id(original node) -> its replacement

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(id(original_node), updated_node)


class _Broken(Exception):
    def __init__(self, calls, reason: str, finding=None):
        super().__init__(reason)
        self.calls = calls
        self.finding = finding


def _binds_on_every_path(statement: cst.BaseStatement, name: str) -> bool:
    """Every path through `statement` binds `name`: a simple statement that assigns it, a `with`
    whose body does, an if/elif/else each of whose arms does (any other compound statement: no)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return name in cstutil.name_uses(statement).stores
    if isinstance(statement, cst.With):
        return any(_binds_on_every_path(inner, name) for inner in statement.body.body)
    if isinstance(statement, cst.If):
        arms, _, fallthrough = if_chain(statement)
        return not fallthrough and all(isinstance(block, cst.IndentedBlock) and any(
            _binds_on_every_path(inner, name) for inner in block.body) for block in arms)
    return False


def _simple_or_if(statement: cst.BaseStatement) -> bool:
    """A simple statement line, or an `if` (elifs, else) of such statements, at any depth."""
    if isinstance(statement, cst.SimpleStatementLine):
        return True
    if not isinstance(statement, cst.If):
        return False
    blocks_of, _, _ = if_chain(statement)
    return all(isinstance(block, cst.IndentedBlock) and all(_simple_or_if(inner) for inner in block.body)
               for block in blocks_of)


def _assigned_names(line: cst.SimpleStatementLine) -> Set[str]:
    """The names a simple statement line binds by assignment (`a, b = ...`, `a += ...`), not the
    variables of its comprehensions, which are their own scope's."""
    names: Set[str] = set()

    def targets(node):
        if isinstance(node, cst.Name):
            names.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                targets(element.value)
        elif isinstance(node, cst.StarredElement):
            targets(node.value)

    for small in line.body:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                targets(target.target)
        elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
            targets(small.target)
        else:  # imports, del, global...: whatever name uses says it binds
            names |= set(cstutil.name_uses(small).stores)
    return names


class _LeafUses:
    """`uses[i]`: the name uses of leaf i, computed once, when first asked for."""

    def __init__(self, recogniser: "_BlockRecogniser"):
        self.recogniser = recogniser

    def __getitem__(self, index: int):
        cache = self.recogniser._uses
        if index not in cache:
            cache[index] = cstutil.scoped_uses(self.recogniser.body[index], statement=True)
        return cache[index]


def recognise_block(body, scope, context: ModuleContext, names, source_of, queues=None, withs=None,
                    exclusive: Optional[Counter] = None) -> BlockResult:
    """All pipelines whose chain lies in `body` (a list of statements of `scope`); `queues`: the
    block's hand-built queues (handbuilt.find), which records may go through; `withs`: the `with`
    statements around each statement of `body` (blocks.Leaf.withs); `exclusive`: the loads of the
    scope that no run of `body` is followed by (blocks.exclusive_loads: the other arms of the
    `if`s it is an arm of), which the counts of uses leave out."""
    return _BlockRecogniser(body, scope, context, names, source_of, queues, withs, exclusive).run()
