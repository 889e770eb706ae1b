"""Recognise queue pipelines in one block of statements and link them into pipeline models.

A pipeline here is the chain, in one block, of
`q = <producer>(files)` → `r = <Reader>()` → `key, value = r.read(q)` → per-record statements →
`x = <batching>([tensors], ...)` (or `return <batching>(...)`). Whatever breaks the chain or
cannot be proven safe becomes a Failure that names the reason; nothing is guessed.
"""
import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from qmigrate import blocks, cstutil, helpers, towers
from qmigrate.model import Pipeline, RecordFunction, Sharding
from qmigrate.names import ImportMap, dotted
from qmigrate.rules import BATCHERS, FILTERERS, JOINERS, PRODUCERS, READERS, SLICERS, rule_for
from qmigrate.rules.base import Unsupported
from qmigrate.rules.producers import MATCH_FILENAMES_ONCE


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
    element_kind: str  # "single" | "tuple" | "dict": what get_next() must give back
    calls: Tuple[cst.Call, ...]  # the producer, reader and batching calls this rewrite removes
    queue_name: Optional[str] = None  # with a reader helper: the queue argument to replace
    batch_helper: Optional["HelperBatch"] = None
    helpers_used: Tuple[str, ...] = ()
    tower_loop: Optional["TowerLoopBatch"] = None  # the batching sits in a tower loop at batch_index
    one_of_repeated: bool = False  # the read leaf is `x = [read(q) for _ in range(n)]`: keep one call
    record_call: Optional[cst.Call] = None  # with a record-source helper: its call, given the record
    producer_branches: Optional[cst.If] = None  # producer made in if/elif arms: the arms, naming the files


@dataclass(frozen=True)
class TowerLoopBatch:
    """Each tower of the loop batches the records of one shared reader: one shard per tower."""

    inner_path: Tuple[int, ...]  # the batching statement's path inside the loop body
    loop_var: str
    num_towers: str


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


def _call_with_rule(expr: Optional[cst.BaseExpression], imports: ImportMap, family) -> Optional[Tuple[type, cst.Call]]:
    if isinstance(expr, cst.Call):
        rule = rule_for(imports.resolve(expr.func))
        if rule in family:
            return rule, expr
    return None


class _CallFinder(cst.CSTVisitor):
    def __init__(self, imports: ImportMap, family):
        self.imports, self.family, self.found = imports, family, False

    def visit_Call(self, node: cst.Call) -> None:
        if rule_for(self.imports.resolve(node.func)) in self.family:
            self.found = True


def _contains_call(node: cst.CSTNode, imports: ImportMap, family) -> bool:
    finder = _CallFinder(imports, family)
    node.visit(finder)
    return finder.found


def _read_call(value: cst.BaseExpression):
    """(reader, queue variable, None) for `reader.read(queue)`, where the reader is a variable's
    name or the reader's constructor call itself (`tf.TFRecordReader().read(queue)`); for
    `reader.read_up_to(queue, n)` the last is n. A `name=` argument only names the read op, which
    goes with the reader."""
    value = helpers.without_op_name(value)
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, (cst.Name, cst.Call)) and value.args
            and value.args[0].keyword is None and isinstance(value.args[0].value, cst.Name)):
        return None
    method, args = value.func.attr.value, value.args
    reader = value.func.value.value if isinstance(value.func.value, cst.Name) else value.func.value
    if method == "read" and len(args) == 1:
        return reader, args[0].value.value, None
    if (method == "read_up_to" and len(args) == 2 and not args[1].star
            and (args[1].keyword is None or args[1].keyword.value == "num_records")):
        return reader, args[0].value.value, args[1].value
    return None


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


def _target_name(target: cst.BaseExpression) -> Optional[str]:
    return target.value if isinstance(target, cst.Name) else None


@dataclass
class ModuleContext:
    """What recognition needs to know about the module beyond the block."""

    imports: ImportMap
    module_names: Set[str]
    input_fns: Set[str] = field(default_factory=set)  # functions an Estimator calls
    reader_helpers: Dict[str, helpers.ReaderHelper] = field(default_factory=dict)
    batch_helpers: Dict[str, helpers.BatchHelper] = field(default_factory=dict)
    record_sources: Dict[str, helpers.RecordSource] = field(default_factory=dict)
    # Helpers kept as they are for callers the migration does not rewrite: old name -> the name of
    # the migrated copy the pipelines call instead.
    kept_helpers: Dict[str, str] = field(default_factory=dict)


def producer_target(stmt: cst.BaseStatement) -> str:
    if isinstance(stmt, cst.If):  # a producer made in if/elif arms: each arm binds the same name
        stmt = stmt.body.body[0]
    return cstutil.single_assign(stmt)[0].value


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class _BlockRecogniser:
    def __init__(self, body: Sequence[cst.BaseStatement], scope: cst.CSTNode, context: ModuleContext,
                 names: NamePool, source_of: Callable[[cst.CSTNode], str]):
        self.body = body
        self.context = context
        self.imports = context.imports
        self.names = names
        self.source_of = source_of
        self.scope = scope
        self._scope_uses = None
        self._uses = {}

    # Name uses are computed on demand: most blocks hold no producer and need none.
    @property
    def scope_loads(self) -> Counter:
        if self._scope_uses is None:
            uses = cstutil.name_uses(self.scope)
            self._scope_uses = (Counter(uses.loads), uses.stores)
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
        for index, stmt in enumerate(self.body):
            assign = cstutil.single_assign(stmt)
            if isinstance(stmt, cst.If):
                try:
                    found = self._branched_producer(stmt)
                except _Broken as broken:
                    result.failures.append(Failure(broken.calls, str(broken)))
                    continue
                if found is not None:
                    name, rule, call, arms, rewritten = found
                    producers[name] = (index, rule, call)
                    branched[index] = (rewritten, arms, call)
                continue
            if assign is None:
                continue
            target, value = assign
            name = _target_name(target)
            found = _call_with_rule(value, self.imports, PRODUCERS)
            if found and name:
                producers[name] = (index,) + found
                continue
            found = _call_with_rule(value, self.imports, READERS)
            if found and name:
                readers[name] = (index,) + found
                continue
            slicer = _call_with_rule(value, self.imports, SLICERS)
            try:
                if slicer:
                    match = self._slices_at(index, target, slicer)
                else:
                    match = self._read_at(index, target, value, producers, readers)
            except _Broken as broken:
                calls = tuple(broken.calls)
                for _, arms, call in branched.values():  # the arms' calls stand for the producer
                    if any(c is call for c in calls):
                        calls += arms
                result.failures.append(Failure(calls, str(broken)))
                continue
            if match is not None:
                if match.removed_indices[0] in branched:
                    match.producer_branches, arms, _ = branched[match.removed_indices[0]]
                    match.calls = tuple(match.calls) + tuple(arms)
                result.matches.append(match)
        _drop_joined(result)
        return result

    def _branched_producer(self, stmt: cst.If):
        """(queue name, rule, call, every arm's call, the if with each arm naming its files) for
        `if a: q = producer(x, ...)` / `elif b: q = producer(y, ...)` (/ `else: ...`) whose arms
        differ only in the file names; the call is the producer over a fresh name for them."""
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
        others = [{k: _code(v) for k, v in bound.items() if k != "string_tensor"} for bound in bounds]
        differ = sorted({k for other in others for k in set(other) | set(others[0])
                         if other.get(k) != others[0].get(k)})
        if differ:
            raise _Broken(tuple(arm_call for _, _, arm_call, _ in arms),
                          "its producer is made in if/elif arms that differ in `%s=`, not only in the file names; "
                          "one tf.data pipeline per arm would be needed" % differ[0])
        arm_calls = tuple(arm_call for _, _, arm_call, _ in arms)
        if any(self.imports.resolve(c.func) == MATCH_FILENAMES_ONCE for bound in bounds
               for c in cstutil.calls_of(bound["string_tensor"])):
            raise _Broken(arm_calls, "its producer is made in if/elif arms over match_filenames_once, a variable "
                          "that a one-shot iterator cannot capture once it is named in the arms")
        files = self.names.fresh("filenames")
        arm_files = {id(arm_stmt): cst.parse_statement("%s = %s\n" % (files, _code(bound["string_tensor"])))
                     .with_changes(leading_lines=arm_stmt.leading_lines)
                     for (_, _, _, arm_stmt), bound in zip(arms, bounds)}
        rewritten = stmt.visit(_ReplaceByIdentity(arm_files))
        call = cstutil.replace_node(call, bounds[0]["string_tensor"], cst.Name(files))
        return name, rule, call, arm_calls, rewritten

    def _read_at(self, index, target, value, producers, readers) -> Optional[Match]:
        """The pipeline read at leaf `index` (`k, v = reader.read(q)` or `x = read_helper(q)`), if any."""
        read = _read_call(value)
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
        helper = self._reader_helper(value)
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
        return self._link_helper(producers[queue.value], helper, index, value, target, readers_count)

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
        else:
            raise _Broken(calls, "the result of slice_input_producer() is not assigned to names")
        return self._follow((index,) + slicer, None, index, None, value, set(names), [], calls, removed=(index,),
                            params=params)

    def _reader_helper(self, value) -> Optional[helpers.ReaderHelper]:
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            return self.context.reader_helpers.get(value.func.value)
        return None

    def _batch_helper(self, value) -> Optional[helpers.BatchHelper]:
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            return self.context.batch_helpers.get(value.func.value)
        return None

    def _link_helper(self, producer, helper: helpers.ReaderHelper, index: int, call: cst.Call,
                     target: cst.BaseExpression, readers_count: Optional[cst.BaseExpression] = None) -> Match:
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
        join = None
        if readers_count is not None:
            returned = helpers.returned(helper.function)
            if not isinstance(returned, (cst.Tuple, cst.List, cst.Dict)):
                raise _Broken(calls, "%s() does not return a literal tuple, list or dict of tensors, which "
                              "batch_join needs from each reader" % helper.function.name.value)
            join = (self.source_of(readers_count), names[0], "dict" if isinstance(returned, cst.Dict) else "tuple")
        return self._follow(producer, reader, index, None, value, set(names), [index], calls,
                            queue_name=producer_target(self.body[producer[0]]),
                            helpers_used=(helper.function.name.value,), join=join)

    def _link_source(self, source: helpers.RecordSource, index: int, call: cst.Call,
                     target: cst.BaseExpression) -> Match:
        """`x = source(files, ...)`: a helper that makes its own producer and reader and returns what
        it parsed from one record. Its producer and reader become the dataset's; the call, given
        the record, is the first per-record statement."""
        calls = (source.producer_call, source.reader_call)
        names = towers.target_names(target)
        if not names:
            raise _Broken(calls, "the result of %s() is not assigned to plain names" % source.name)
        try:
            produced, read = helpers.source_arguments(source, call, self.context.module_names, self._caller_bound())
        except (helpers.NotMovable, Unsupported) as error:
            raise _Broken(calls, "the producer's and reader's arguments cannot be moved out of %s(): %s"
                          % (source.name, error))
        value = self._fresh_local(source.value_name)
        new_call = helpers.source_call(source, call, value, self.context.kept_helpers.get(source.name, source.name))
        producer = (index, source.producer_rule, source.producer_call)
        return self._follow(producer, (source.reader_rule, source.reader_call, read, None), index, None, value,
                            set(names), [index], calls, helpers_used=(source.name,), bound_producer=produced,
                            record_call=new_call)

    def _caller_bound(self) -> frozenset:
        """Names the calling function binds (its locals and parameters): a module-level name a
        helper reads means something else there."""
        if not isinstance(self.scope, cst.FunctionDef):
            return frozenset()
        params = self.scope.params
        named = list(params.posonly_params) + list(params.params) + list(params.kwonly_params) + [
            p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        return frozenset(self.scope_stores | {p.name.value for p in named})

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
                bound_producer=None, record_call=None) -> Match:
        """From the read on: the per-record statements, the batching, the checks, the model.

        `reader` is None for a slice producer, whose outputs are the records (`params` names them).
        `join` is (readers, the list's name, "tuple" | "dict") when several readers feed a batch_join.
        `bound_producer`: the producer's arguments moved out of a record-source helper.
        """
        producer_index, producer_rule, producer_call = producer
        record_indices = list(record_indices)
        batch = in_loop = None
        for index in range(read_index + 1, len(self.body)):
            uses = self.uses[index]
            reads_record = bool(tainted & set(uses.loads))
            value_expr = cstutil.statement_value(self.body[index])
            found = _call_with_rule(value_expr, self.imports, BATCHERS + JOINERS + FILTERERS)
            helper = self._batch_helper(value_expr)
            if (found or helper) and reads_record:
                batch = (index, found, helper, value_expr)
                break
            tower = self._batch_in_tower_loop(index, tainted) if reads_record else None
            if tower is not None:
                loop, inner = tower
                batch = (index, _call_with_rule(cstutil.statement_value(inner.original), self.imports, BATCHERS),
                         None, cstutil.statement_value(inner.original))
                in_loop = loop
                break
            if reads_record:
                if _contains_call(self.body[index], self.imports, BATCHERS):
                    raise _Broken(calls, "the batching call is part of a larger statement; assign its result "
                                  "to names first")
                if uses.control:
                    raise _Broken(calls, "the per-record code contains `%s`" % sorted(uses.control)[0])
                record_indices.append(index)
                tainted |= uses.stores
            elif tainted & uses.stores:
                raise _Broken(calls, "a statement rebinds `%s`, a per-record tensor, without using the record"
                              % sorted(tainted & uses.stores)[0])
        if batch is None:
            raise _Broken(calls, "its records are not batched by tf.train.batch/shuffle_batch in the same block")
        batch_index, found, batch_helper_def, batch_call = batch
        chain = (producer_index, read_index, batch_index) + tuple(removed)
        try:
            if found and (found[0] in JOINERS) != (join is not None):
                raise _Broken(calls + (batch_call,), "batch_join needs one list of reader-helper calls "
                              "(`[read(queue) for _ in range(n)]`) as its tensors_list, and only batch_join "
                              "takes such a list")
            if found:
                batch_rule = found[0]
                calls += (batch_call,)
                bound = batch_rule.bind(batch_call)
                if join is not None:
                    element_kind, returns = self._joined_element(bound.get("tensors_list"), join, calls)
                else:
                    element_kind, returns = self._element(bound.get("tensors"), calls, record_indices)
                batching = batch_rule.model(bound, self.source_of, self.imports.resolve)
                helper_batch = None
            else:
                batching, element_kind, returns, helper_batch, helper_calls = self._helper_batching(
                    batch_helper_def, batch_call, calls)
                calls += helper_calls
                helpers_used += (batch_helper_def.function.name.value,)
            self._check_isolated(producer_index, reader_index, read_index, record_indices, batch_index,
                                 tainted, calls, chain)
            if bound_producer is None:
                bound_producer = producer_rule.bind(producer_call)
            matched = self._file_name_match(bound_producer, producer_index, batch_index, calls)
            if matched is not None:  # match_filenames_once, in the call or one line above
                call, index = matched
                bound_producer = dict(bound_producer, string_tensor=call)
                calls += (call,)
                removed = tuple(removed) + ((index,) if index is not None else ())
            file_source = producer_rule.model(bound_producer, self.source_of, self.imports.resolve)
            record_reader = self._reader_model(reader)
        except Unsupported as unsupported:
            raise _Broken(calls, str(unsupported))
        if join is not None:
            # The n readers' enqueue ops also ran the per-record code n at a time.
            record_reader = dataclasses.replace(record_reader, parallel_reads=join[0])
            batching = dataclasses.replace(batching, num_threads=batching.num_threads or join[0])
        if record_reader and record_reader.read_up_to and not batching.enqueue_many:
            raise _Broken(calls, "it reads chunks with read_up_to() but batches them without enqueue_many=True")
        if key and record_reader.kind != "whole_file":
            raise _Broken(calls, "the per-record code uses the reader's key `%s`, which the %s dataset does not give"
                          % (key, record_reader.kind))

        static_shapes = self._static_shapes(batching, returns, element_kind, calls)
        if batching.keep_input:
            # maybe_batch's keep_input is computed per record: the map function returns it beside
            # the element, a filter keeps the records it allows.
            returns = "(%s), %s" % (returns, batching.keep_input) if element_kind == "tuple" else "%s, %s" % (
                returns, batching.keep_input)
        if record_indices or returns != value or static_shapes:
            params = params or ((key, value) if key else (value,))
            function = RecordFunction(self.names.fresh("parse_record"), params, returns, static_shapes)
        else:
            function = None
        file_name = self._fresh_local("filename", file_source, record_reader) if record_reader else "filename"
        pipeline = Pipeline(file_source, record_reader, function, batching,
                            dataset_name=self.names.fresh("dataset"), file_name_param=file_name)
        if in_loop is not None:
            pipeline = dataclasses.replace(pipeline, sharding=Sharding(in_loop.num_towers, in_loop.loop_var))
        return Match((producer_index,) + tuple(removed), read_index, tuple(record_indices), batch_index,
                     pipeline, element_kind, calls, queue_name=queue_name, batch_helper=helper_batch,
                     helpers_used=helpers_used, tower_loop=in_loop, one_of_repeated=join is not None,
                     record_call=record_call)

    def _file_name_match(self, bound, producer_index: int, batch_index: int, calls):
        """(the match_filenames_once call, the index of the statement that binds it or None) for a
        producer whose file names it gives, in place or through a name used only there."""
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
            # A one-shot iterator cannot capture the variable itself: only its sole use can go.
            if self.scope_loads[files.value] != 1:
                raise _Broken(calls + (assign[1],), "its file names are a match_filenames_once variable that "
                              "is also used elsewhere, and a one-shot iterator cannot capture a variable")
            # The pattern is read where the chain now stands: nothing may rebind what it reads.
            reads = set(self.uses[index].loads)
            if any(reads & self.uses[later].stores for later in range(index + 1, batch_index)):
                raise _Broken(calls + (assign[1],), "what the match_filenames_once pattern reads is "
                              "reassigned before the batch")
            return assign[1], index
        return None

    def _reader_model(self, reader):
        """The RecordReader of (rule, call, arguments moved out of a helper or None, read_up_to's
        count or None), or None."""
        if reader is None:
            return None
        rule, call, moved_arguments, up_to = reader
        if moved_arguments is None:
            model = rule.model(rule.bind(call), self.source_of, self.imports.resolve)
        else:
            model = rule.model(moved_arguments, _code, self.imports.resolve)
        if up_to is None:
            return model
        if model.kind == "whole_file":
            raise Unsupported("it reads whole files with read_up_to(), whose keys qmigrate does not model")
        return dataclasses.replace(model, read_up_to=self.source_of(up_to))

    def _batch_in_tower_loop(self, index: int, tainted: Set[str]):
        """(TowerLoopBatch, inner leaf) when leaf `index` is a tower loop whose only use of the
        records is one batching statement: each tower batches the shared reader's records."""
        loop = self.body[index]
        if not isinstance(loop, cst.For) or not isinstance(loop.body, cst.IndentedBlock):
            return None
        loop_var, towers_expr = towers.tower_range(loop, self.imports)
        if loop_var is None or not towers.places_devices(loop, self.imports):
            return None
        users = [leaf for leaf in blocks.flatten(loop.body.body, loop.body.body)
                 if tainted & set(cstutil.name_uses(leaf.original).loads)]
        if len(users) != 1 or not cstutil.single_assign(users[0].original):
            return None
        if not _call_with_rule(cstutil.statement_value(users[0].original), self.imports, BATCHERS):
            return None
        return TowerLoopBatch(users[0].path, loop_var, self.source_of(towers_expr)), users[0]

    def _helper_batching(self, helper: helpers.BatchHelper, call: cst.Call, calls):
        """The batching a helper call performs, written in the caller's scope."""
        name = helper.function.name.value
        try:
            arguments = helpers.bind_call(helper.function, call)
        except helpers.NotMovable as error:
            raise _Broken(calls, "%s() %s" % (name, error))
        site = helper.sites[0]
        if helper.flag is not None:
            truth = helpers.literal_truth(arguments.get(helper.flag))
            if truth is None:
                raise _Broken(calls, "%s() is called with `%s` computed at run time, so which batching it does "
                              "is unknown" % (name, helper.flag))
            site = helper.sites[0] if truth else helper.sites[1]
        try:
            moved = {param: helpers.move_expression(node, helper.function, helper.removable[0], arguments,
                                                    self.context.module_names)
                     for param, node in site.rule.bind(site.call).items() if param != "tensors"}
            batching = site.rule.model(moved, _code, self.imports.resolve)
        except helpers.NotMovable as error:
            raise _Broken(calls + (site.call,), "the arguments of its batching cannot be moved out of %s(): %s"
                          % (name, error))
        except Unsupported as error:
            raise _Broken(calls + (site.call,), str(error))
        missing = [p for p in helper.tensor_params if p not in arguments]
        if missing:
            raise _Broken(calls, "%s() is called without `%s`" % (name, missing[0]))
        sources = [self.source_of(arguments[p]) for p in helper.tensor_params]
        element_kind = "single" if len(sources) == 1 else "tuple"
        targets = tuple(self._fresh_local(t) for t in helper.targets)
        return (batching, element_kind, ", ".join(sources), HelperBatch(helper, targets),
                tuple(s.call for s in helper.sites))

    def _read_targets(self, target: cst.BaseExpression, calls) -> Tuple[Optional[str], str]:
        if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
            raise _Broken(calls, "the result of reader.read() is not unpacked into `key, value`")
        key, value = (_target_name(element.value) for element in target.elements)
        if value is None or key is None:
            raise _Broken(calls, "reader.read() is unpacked into something other than two plain names")
        if key == "_" or self.scope_loads[key] == 0:
            key = None
        return key, value

    def _check_isolated(self, producer_index, reader_index, read_index, record_indices, batch_index, tainted,
                        calls, chain):
        """Prove that moving the chain cannot change what any other code sees."""
        chain = set(chain) | set(record_indices)
        queues = []  # a slice producer's outputs are records, checked with the tainted names below
        if reader_index is not None or producer_index != read_index:
            queues.append(producer_target(self.body[producer_index]))
        if reader_index is not None:
            queues.append(producer_target(self.body[reader_index]))
        for queue_name in queues:
            if self.scope_loads[queue_name] != 1:
                raise _Broken(calls, "`%s` is used beyond reader.read(), by code qmigrate cannot rewrite" % queue_name)
        inside = Counter()
        for index in chain:
            inside.update(self.uses[index].loads)
        for name in sorted(tainted):
            if self.scope_loads[name] > inside[name]:
                raise _Broken(calls, "the per-record tensor `%s` is also used outside the record path" % name)
        for index in record_indices:
            escaped = self.uses[index].mutated - tainted
            if escaped:
                raise _Broken(calls, "the per-record code stores into `%s`, which lives outside the record path"
                              % sorted(escaped)[0])
        # The map function is traced where the batch was built: what it reads must not change
        # between where the code stood and there; the producer's and reader's arguments neither.
        readers = record_indices + [producer_index] + ([reader_index] if reader_index is not None else [])
        for reader in readers:
            reads = set(self.uses[reader].loads) - tainted
            for index in range(reader + 1, batch_index):
                rebound = reads & self.uses[index].stores if index not in chain else set()
                if rebound:
                    raise _Broken(calls, "`%s` is reassigned between the queue and the batch, so the moved code "
                                  "would see another value" % sorted(rebound)[0])

    def _joined_element(self, tensors_list, join, calls) -> Tuple[str, str]:
        """batch_join's element: one reader's tuple (or dict), the list comprehension's item."""
        _, name, kind = join
        if not (isinstance(tensors_list, cst.Name) and tensors_list.value == name):
            raise _Broken(calls, "batch_join's tensors_list is not the list of reader-helper calls itself")
        if kind == "dict":
            return "dict", name
        # A tuple, not a list: tf.data would stack a list returned by the map function into one tensor.
        return "tuple", "tuple(%s)" % name

    def _element(self, tensors: Optional[cst.BaseExpression], calls, record_indices) -> Tuple[str, str]:
        """The structure get_next() must return, and the map function's return expression."""
        if isinstance(tensors, cst.Dict):
            return "dict", self.source_of(tensors)
        if isinstance(tensors, cst.Name) and self._parsed_dict(tensors.value, record_indices):
            return "dict", tensors.value
        if isinstance(tensors, (cst.List, cst.Tuple)) and tensors.elements:
            if any(isinstance(element, cst.StarredElement) for element in tensors.elements):
                raise _Broken(calls, "the batched tensors are built with *unpacking")
            sources = [self.source_of(element.value) for element in tensors.elements]
            if len(sources) == 1:
                # tf.train.batch([t]) returns the tensor itself, not a list of one.
                return "single", sources[0]
            return "tuple", ", ".join(sources)
        raise _Broken(calls, "the batched tensors are not a literal list, tuple or dict")

    def _static_shapes(self, batching, returns: str, element_kind: str, calls) -> Tuple[Tuple[str, str], ...]:
        """(name, shape) for each batched tensor whose shape `shapes=` declared: the queue set them
        on its components; the map function sets them on what it returns."""
        if not batching.shapes:
            return ()
        names = [part.strip() for part in returns.split(",")] if element_kind != "dict" else []
        if batching.enqueue_many or len(names) != len(batching.shapes) or not all(n.isidentifier() for n in names):
            raise _Broken(calls, "it sets `shapes=` for tensors that are not plain names (or with enqueue_many); "
                          "assign each batched tensor to a name first")
        return tuple(zip(names, batching.shapes))

    def _parsed_dict(self, name: str, record_indices) -> bool:
        """Whether the per-record code binds `name` once, to the dict of parse_single_example."""
        bindings = [index for index in record_indices if name in self.uses[index].stores]
        if len(bindings) != 1:
            return False
        assign = cstutil.single_assign(self.body[bindings[0]])
        return (assign is not None and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call)
                and self.imports.resolve(assign[1].func) in _DICT_PARSERS)

    def _fresh_local(self, preferred: str, *texts) -> str:
        """A lambda parameter name that shadows nothing the lambda's body or its scope reads."""
        name, n = preferred, 2
        taken = self.scope_loads.keys() | self.scope_stores
        while name in taken or any(re.search(r"\b%s\b" % name, str(text)) for text in texts):
            name, n = "%s_%d" % (preferred, n), n + 1
        return name


_DICT_PARSERS = ("tensorflow.parse_single_example", "tensorflow.io.parse_single_example")


def _leaves_of(match: Match) -> Set[int]:
    return set(match.removed_indices) | set(match.record_indices) | {match.read_index, match.batch_index}


def _drop_joined(result: BlockResult) -> None:
    """Pipelines that share a statement (records of two readers batched together) are not
    separate pipelines: neither is rewritten, each is reported."""
    joined = [m for m in result.matches if any(o is not m and _leaves_of(o) & _leaves_of(m) for o in result.matches)]
    for match in joined:
        result.matches.remove(match)
        result.failures.append(Failure(match.calls, "records of several readers meet in one statement (one batch of "
                                       "two reads); tf.data pairs such sources with Dataset.zip, which qmigrate "
                                       "does not write yet"))


class _ReplaceByIdentity(cst.CSTTransformer):
    def __init__(self, replacements):
        self.replacements = replacements  # id(original node) -> its replacement

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(id(original_node), updated_node)


class _Broken(Exception):
    def __init__(self, calls, reason: str):
        super().__init__(reason)
        self.calls = calls


class _LeafUses:
    """`uses[i]`: the name uses of leaf i, computed once, when first asked for."""

    def __init__(self, recogniser: "_BlockRecogniser"):
        self.recogniser = recogniser

    def __getitem__(self, index: int):
        cache = self.recogniser._uses
        if index not in cache:
            cache[index] = cstutil.name_uses(self.recogniser.body[index])
        return cache[index]


def recognise_block(body, scope, context: ModuleContext, names, source_of) -> BlockResult:
    """All pipelines whose chain lies in `body` (a list of statements of `scope`)."""
    return _BlockRecogniser(body, scope, context, names, source_of).run()
