"""Recognise hand-built queues filled by queue runners, in one block, and lower each to a batching.

    queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes, shapes=...)
    enqueue = queue.enqueue([image, label])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * num_threads))
    images, labels = queue.dequeue_many(batch_size)

is `shuffle_batch` spelled by hand. `find` returns, per queue, what its statements are and the
`model.Batching` the dequeue stands for (None for `dequeue()`: records one at a time, whose
stage `merge` folds into the batching that follows). The block recogniser follows the records
of a producer → reader chain into the enqueue and out of the dequeue; whatever cannot be proven
to be this shape is refused with its reason.
"""
import dataclasses
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

import libcst as cst

from qmigrate import cstutil, helpers, queue_roles, reader_makers
from qmigrate.model import Batching
from qmigrate.names import ImportMap
from qmigrate.rules.base import is_none, is_plain
from qmigrate.rules.batching import shuffle_buffer

_FIFO, _PADDING, _SHUFFLE = "tensorflow.FIFOQueue", "tensorflow.PaddingFIFOQueue", "tensorflow.RandomShuffleQueue"
# Each constructor's parameters in TensorFlow's positional order.
_SIGNATURES = {
    _FIFO: ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
    _PADDING: ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
    _SHUFFLE: ("capacity", "min_after_dequeue", "dtypes", "shapes", "names", "seed", "shared_name", "name"),
}
_RUNNER = "tensorflow.train.QueueRunner"
_RUNNER_SIGNATURE = ("queue", "enqueue_ops", "close_op", "cancel_op", "queue_closed_exception_types",
                     "queue_runner_def", "import_scope")
_ADD_RUNNER = "tensorflow.train.add_queue_runner"
_DEQUEUES = ("dequeue", "dequeue_many", "dequeue_up_to")


@dataclass(frozen=True)
class HandBuiltQueue:
    """A queue of this block, the statements that fill and drain it, and what it means.

    `tensors` is what one enqueue op puts in (a literal list, tuple or dict, or a name); with
    `batching` None the queue gives records one at a time (`dequeue()`), and the dequeue
    statement becomes `record_statements` (the records' names, and the static shapes the queue
    set on its components); `stage` then holds what the queue adds to the batching that follows.
    """

    name: str
    plumbing: Tuple[int, ...]  # constructor and runner statements: they go with the queue
    enqueue_index: int
    dequeue_index: int
    tensors: cst.BaseExpression
    batching: Optional[Batching]
    stage: Optional[Batching]
    record_statements: Optional[Tuple[str, ...]]  # None: they cannot be written, `records_refused` says why
    calls: Tuple[cst.Call, ...]
    capacity: str
    records_refused: str = ""
    # Names the stage's arguments read where the dataset is built (a queue helper's call only):
    # none may be a per-record tensor.
    reads: FrozenSet[str] = frozenset()
    # (name, count) when the dequeue binds `name` to a list of `count` tensors the recogniser
    # cannot see in the record statements (a queue helper given a list by name).
    structure: Optional[Tuple[str, int]] = None
    helper: Optional[str] = None  # the queue helper whose call this is
    # A queue helper called as a statement of `if test:` (the statement at enqueue_index): the
    # test's source, and the `if` as it stays in place without the call (its other statements
    # are plain Python the recogniser proves do not touch the records; None when there are none).
    condition: Optional[str] = None
    kept: Optional[cst.BaseStatement] = None
    call_stores: FrozenSet[str] = frozenset()  # the names the call binds (the records, once more)


@dataclass(frozen=True)
class RefusedQueue:
    """A hand-built queue of this block that is left as it is, and why."""

    enqueue_index: Optional[int]
    calls: Tuple[cst.Call, ...]
    reason: str
    todo: str = ""  # what to do with its constructors, where the rule's advice does not fit
    constructors: Tuple[cst.Call, ...] = ()


@dataclass
class BlockQueues:
    """The hand-built queues of one block: by the index of their enqueue statement."""

    accepted: Dict[int, HandBuiltQueue] = dataclasses.field(default_factory=dict)
    refused: Dict[int, RefusedQueue] = dataclasses.field(default_factory=dict)
    unplaced: List[RefusedQueue] = dataclasses.field(default_factory=list)  # refused before an enqueue was found
    # The block's scope and the module's queue helpers: if the block is a queue helper's body, why
    # its queue stays when no caller's pipeline took it (worked out only when asked).
    scope: Optional[cst.CSTNode] = None
    queue_helpers: Optional["QueueHelpers"] = None

    def helper_reason(self) -> Tuple[Optional[str], bool]:
        """(the reason, whether it holds for refused queues too: the helper is one qmigrate follows)."""
        if self.queue_helpers is None:
            return None, False
        reason = _helper_reason(self.scope, self.queue_helpers)
        followed = reason is not None and isinstance(self.queue_helpers.get(self.scope.name.value), QueueHelper)
        return reason, followed

    def by_dequeue(self, index: int) -> Optional[HandBuiltQueue]:
        return next((q for q in self.accepted.values() if q.dequeue_index == index), None)

    def of_batches(self, index: int, body: Sequence[cst.BaseStatement], scope_loads) -> Optional[HandBuiltQueue]:
        """The FIFOQueue that holds the batches statement `index` makes, dequeued whole: a prefetch stage.

        The batch's names must be enqueued as they are (`q.enqueue([images, labels])` after
        `images, labels = batch(...)`, or `q.enqueue(batch)` after `batch = batch(...)`) and used
        nowhere else, so the dequeue gives back what the batching gave.
        """
        assign = cstutil.single_assign(body[index])
        if assign is None:
            return None
        target = assign[0]
        names = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        if not all(isinstance(n, cst.Name) for n in names):
            return None
        names = [n.value for n in names]
        for queue in self.accepted.values():
            if queue.enqueue_index <= index or queue.batching is not None or queue.stage.shuffle_buffer:
                continue
            enqueued = queue.tensors
            if isinstance(enqueued, cst.Name) and isinstance(target, cst.Name):
                given = [enqueued.value]
            elif isinstance(enqueued, (cst.List, cst.Tuple)) and isinstance(target, (cst.Tuple, cst.List)):
                given = [e.value.value if isinstance(e.value, cst.Name) else None for e in enqueued.elements]
            else:
                continue
            if given == names and all(scope_loads[n] == _loads_after(body, queue, n) + 1 for n in names):
                return queue
        return None


def _loads_after(body, queue: HandBuiltQueue, name: str) -> int:
    """Loads of `name` after the queue's dequeue when the dequeue rebinds it (they read the
    dequeued value, not the batch), else 0."""
    if name not in cstutil.name_uses(body[queue.dequeue_index]).stores:
        return 0
    return sum(cstutil.name_uses(stmt).loads.count(name) for stmt in body[queue.dequeue_index + 1:])


class Declined(Exception):
    """Why a queue stays; `todo`: what to do instead, where the rule's advice does not fit."""

    def __init__(self, reason: str, todo: str = ""):
        super().__init__(reason)
        self.todo = todo


def bind_arguments(call: cst.Call, signature: Sequence[str], what: str,
                   owner: str = "TensorFlow") -> Dict[str, cst.BaseExpression]:
    """Arguments by parameter name (`owner`: whose signature it is, for the refusal)."""
    bound = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise Declined("%s passes arguments with * or **, which cannot be read statically" % what)
        name = arg.keyword.value if arg.keyword is not None else (
            signature[position] if position < len(signature) else None)
        if name not in signature:
            raise Declined("%s passes an argument %s does not take" % (what, owner))
        bound[name] = arg.value
    return bound


def _method_call(stmt: cst.BaseStatement, queue: str, methods) -> Optional[Tuple[cst.BaseExpression, cst.Call]]:
    """(target, call) for `target = queue.<method>(...)`, or (None, call) for `return queue.<method>(...)`."""
    assign = cstutil.single_assign(stmt)
    if assign is not None:
        target, value = assign
    elif isinstance(cstutil.single_small(stmt), cst.Return):
        target, value = None, cstutil.statement_value(stmt)
    else:
        return None
    if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, cst.Name) and value.func.value.value == queue
            and value.func.attr.value in methods):
        return target, value
    return None


def find(body: Sequence[cst.BaseStatement], scope: cst.CSTNode, imports: ImportMap,
         source_of: Callable[[cst.CSTNode], str], queue_helpers: Optional["QueueHelpers"] = None,
         module_names: frozenset = frozenset(), makers: frozenset = frozenset()) -> BlockQueues:
    """The hand-built queues constructed in `body` (the statements of one block of `scope`), and
    the calls of queue helpers (`queue_helpers`) there: each is its queue's enqueue and dequeue.
    `makers`: how calls of the module's reader makers are spelled (reader_makers.names): a loop of
    readers may make its reader with one (the recogniser proves which it calls, or refuses).

    A queue whose every dequeue is fetched by `session.run` is not input (QM003) and is not
    returned at all. Never raises.
    """
    found = BlockQueues()
    if queue_helpers is not None:
        _find_helper_calls(body, scope, queue_helpers, set(module_names), found)
        found.scope, found.queue_helpers = scope, queue_helpers
    constructors = []
    for index, stmt in enumerate(body):
        assign = cstutil.single_assign(stmt)
        if (assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call)
                and imports.resolve(assign[1].func) in _SIGNATURES):
            if not _in_chosen_pair(scope, stmt, imports):  # the block around the `if` reads it
                constructors.append((index, assign[0].value, assign[1], None))
            continue
        chosen = chosen_queue(stmt, imports)
        if chosen is not None:
            constructors.append((index, chosen.name, chosen.shuffle_call, chosen))
    if not constructors:
        return found
    fetched = queue_roles.fetched_only(scope, [call for _, _, call, _ in constructors])
    scope_loads = Counter(cstutil.name_uses(scope).loads)
    for index, name, call, chosen in constructors:
        if id(call) in fetched:
            continue
        reader = _QueueReader(body, imports, source_of, scope_loads, index, name, call,
                              line_of=queue_helpers.line_of if queue_helpers is not None else None, chosen=chosen,
                              makers=makers)
        try:
            queue = reader.read()
        except Declined as refused:
            if reader.enqueue_index is None:
                refused = _arm_choice(scope, body[index], name, imports, queue_helpers) or refused
            item = RefusedQueue(reader.enqueue_index, tuple(reader.calls), str(refused), refused.todo,
                                (call,) + ((chosen.other_call,) if chosen is not None else ()))
            if reader.enqueue_index is None:
                found.unplaced.append(item)
            else:
                found.refused[reader.enqueue_index] = item
            continue
        found.accepted[queue.enqueue_index] = queue
    return found


@dataclass(frozen=True)
class ChosenQueue:
    """`if test: name = tf.RandomShuffleQueue(...) else: name = tf.FIFOQueue(...)` (either way
    round): one queue, shuffling when `condition` holds (the test, or `not (test)`)."""

    name: str
    shuffle_call: cst.Call
    other_call: cst.Call
    condition: str
    test: cst.BaseExpression


def chosen_queue(stmt: cst.BaseStatement, imports: ImportMap) -> Optional[ChosenQueue]:
    """`stmt` as a queue class chosen by a test: an if/else whose arms are one statement each,
    binding the same name, one to a RandomShuffleQueue and the other to a FIFOQueue."""
    if not (isinstance(stmt, cst.If) and isinstance(stmt.orelse, cst.Else)
            and isinstance(stmt.body, cst.IndentedBlock) and isinstance(stmt.orelse.body, cst.IndentedBlock)):
        return None
    arms = []
    for arm in (stmt.body.body, stmt.orelse.body.body):
        assign = cstutil.single_assign(arm[0]) if len(arm) == 1 else None
        if not (assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call)):
            return None
        arms.append((assign[0].value, assign[1], imports.resolve(assign[1].func)))
    if arms[0][0] != arms[1][0] or {arms[0][2], arms[1][2]} != {_SHUFFLE, _FIFO}:
        return None
    test = cst.Module([]).code_for_node(stmt.test)
    if arms[0][2] == _SHUFFLE:
        return ChosenQueue(arms[0][0], arms[0][1], arms[1][1], test, stmt.test)
    negated = ("not %s" if isinstance(stmt.test, cst.Name) else "not (%s)") % test
    return ChosenQueue(arms[0][0], arms[1][1], arms[0][1], negated, stmt.test)


def _in_chosen_pair(scope, stmt, imports: ImportMap) -> bool:
    """Whether `stmt` is an arm of a queue class chosen by a test (chosen_queue)."""
    for branch in cstutil.nodes_of(scope, cst.If):
        if chosen_queue(branch, imports) is not None and (
                branch.body.body[0] is stmt or branch.orelse.body.body[0] is stmt):
            return True
    return False


def _arm_choice(scope, stmt, name: str, imports: ImportMap, queue_helpers) -> Optional[Declined]:
    """Why a queue built in an arm of `if test: name = QueueA(...) else: name = QueueB(...)` stays:
    the code picks the queue class by a test, and fills and drains `name` after the if."""
    for branch in cstutil.nodes_of(scope, cst.If):
        orelse = branch.orelse
        if not (isinstance(orelse, cst.Else) and isinstance(branch.body, cst.IndentedBlock)
                and isinstance(orelse.body, cst.IndentedBlock)):
            continue
        arms = (list(branch.body.body), list(orelse.body.body))
        if not any(inner is stmt for arm in arms for inner in arm):
            continue
        kinds = []
        for arm in arms:
            bound = [cstutil.single_assign(inner) for inner in arm]
            made = [b[1] for b in bound if b and isinstance(b[0], cst.Name) and b[0].value == name
                    and isinstance(b[1], cst.Call) and imports.resolve(b[1].func) in _SIGNATURES]
            if len(made) != 1:
                return None
            kinds.append(imports.resolve(made[0].func).rsplit(".", 1)[1])
        if cstutil.name_uses(scope).loads.count(name) <= cstutil.name_uses(branch).loads.count(name):
            return None  # not used after the if: nothing says how it is filled
        line = queue_helpers.line_of(branch) if queue_helpers is not None else 0
        return Declined("`%s` is a %s or a %s, one per arm of `%s` (line %d), and is used after the if;"
                        " qmigrate follows one queue bound once, so the queue class chosen by a test is not "
                        "followed yet" % (name, kinds[0], kinds[1], _short(_header(branch)), line),
                        "build the dataset once after the if, and apply the stage the test chooses "
                        "(`dataset = dataset.shuffle(min_after_dequeue)` under the test for a RandomShuffleQueue)")
    return None


def _helper_reason(scope, queue_helpers: "QueueHelpers") -> Optional[str]:
    if not (isinstance(scope, cst.FunctionDef) and queue_helpers.functions.get(scope.name.value) is scope):
        return None
    helper = queue_helpers.get(scope.name.value)
    if isinstance(helper, RefusedHelper):
        return helper.reason.replace("it goes through ", "", 1) if helper.enqueues_parameter else None
    if isinstance(helper, QueueHelper):
        return ("it passes on the tensors %s() is given, and no call of %s() passes it the records of a producer → "
                "reader chain that qmigrate migrated" % (helper.name, helper.name))
    return None


_NESTED = ("its records go through %s() (line %d), a queue helper, inside `%s` (line %d); qmigrate follows a queue "
           "helper's call only as a statement of its own (`x = helper(...)`) in the block that reads and batches "
           "the records")


def _nested_helper_call(stmt, queue_helpers: "QueueHelpers", bound) -> Optional[Tuple[str, cst.Call]]:
    """(name, call) of a queue helper called somewhere inside `stmt` (an if/with/for body, or an
    argument), when `stmt` is not that call itself."""
    for call in cstutil.calls_of(stmt):
        if (isinstance(call.func, cst.Name) and call.func.value not in bound
                and queue_helpers.get(call.func.value) is not None):
            return call.func.value, call
    return None


def _header(stmt: cst.BaseStatement) -> str:
    """The first line of a statement, as written (`if shuffle:`)."""
    return cst.Module([]).code_for_node(_bare(stmt)).strip().splitlines()[0]


def _find_helper_calls(body, scope, queue_helpers: "QueueHelpers", module_names: set, found: BlockQueues) -> None:
    if not queue_helpers.candidates:
        return
    body = list(body)
    if not any(queue_helpers.contains_call(stmt) for stmt in body):
        return
    bound = _caller_bound(scope)
    for index, stmt in enumerate(body):
        if not queue_helpers.contains_call(stmt):
            continue
        call = _helper_call(stmt, queue_helpers, bound)
        if call is None and _conditional_call(stmt, queue_helpers, bound) is not None:
            try:
                found.accepted[index] = _at_conditional_call(stmt, body, index, queue_helpers, bound, module_names)
            except Declined as refused:
                found.refused[index] = RefusedQueue(index, (_conditional_call(stmt, queue_helpers, bound)[1],),
                                                    str(refused))
            continue
        if call is None:
            nested = _nested_helper_call(stmt, queue_helpers, bound)
            if nested is not None:  # its records must not be moved into a map function with the statement
                found.refused[index] = RefusedQueue(index, (nested[1],), _NESTED % (
                    nested[0], queue_helpers.line_of(queue_helpers.functions[nested[0]]),
                    _short(_header(stmt)), queue_helpers.line_of(stmt)))
            continue
        helper, target, value = call
        if isinstance(helper, RefusedHelper):
            found.refused[index] = RefusedQueue(index, (value,), helper.reason)
            continue
        try:
            found.accepted[index] = at_call(helper, body, index, target, value, module_names, bound,
                                            queue_helpers.line_of)
        except Declined as refused:
            found.refused[index] = RefusedQueue(index, (value,), str(refused))


def _conditional_call(stmt, queue_helpers: "QueueHelpers", bound) -> Optional[Tuple[int, cst.Call]]:
    """(position in the body, call) when `stmt` is `if test:` (no elif/else) whose body has one
    statement `target = helper(...)` calling a queue helper and no other call of one; else None."""
    if not (isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock)):
        return None
    found = []
    for position, inner in enumerate(stmt.body.body):
        call = _helper_call(inner, queue_helpers, bound)
        if call is not None and call[1] is not None:
            found.append((position, call[2]))
        elif queue_helpers.contains_call(inner):
            return None
    return found[0] if len(found) == 1 else None


def _at_conditional_call(stmt: cst.If, body, index: int, queue_helpers: "QueueHelpers", bound,
                         module_names: set) -> HandBuiltQueue:
    """The queue of a helper called under `if test:` (statement `index` of `body`): the helper's
    stage applied when the test holds. The test is evaluated again where the dataset is built,
    so it must read only names and literals none of which is rebound in or after the `if`."""
    position, call = _conditional_call(stmt, queue_helpers, bound)
    line = queue_helpers.line_of(stmt)
    if not is_plain(stmt.test):
        raise Declined("its records go through %s() under `%s` (line %d), whose test reads an attribute, a call or "
                       "a subscript; the dataset would test it again, so bind it to a name first"
                       % (call.func.value, _short(_header(stmt)), line))
    inner = list(stmt.body.body)
    helper, target, value = _helper_call(inner[position], queue_helpers, bound)
    if isinstance(helper, RefusedHelper):
        raise Declined(helper.reason)
    # The if's body in place of the if: what precedes the call and what follows it, as the checks see it.
    flat = list(body[:index]) + inner + list(body[index + 1:])
    queue = at_call(helper, flat, index + position, target, value, module_names, bound, queue_helpers.line_of)
    if queue.batching is not None:
        raise Declined("%s() under `%s` (line %d) batches the records, and a batch made only when a test holds "
                       "is not one dataset" % (helper.name, _short(_header(stmt)), line))
    tested = set(cstutil.name_uses(stmt.test).loads)
    for later in inner + list(body[index + 1:]):
        rebound = tested & cstutil.name_uses(later).stores
        if rebound:
            raise Declined("`%s`, which the test `%s` (line %d) reads, is reassigned at line %d, before the dataset "
                           "that tests it again" % (sorted(rebound)[0], _short(_header(stmt)), line,
                                                    queue_helpers.line_of(later)))
    rest = inner[:position] + inner[position + 1:]
    # With nothing else in it the `if` goes: its test reads only names, so dropping it changes nothing.
    kept = stmt.with_changes(body=stmt.body.with_changes(body=rest)) if rest else None
    condition = cst.Module([]).code_for_node(stmt.test)
    stage = queue.stage
    if stage.shuffle_buffer:
        stage = dataclasses.replace(stage, shuffle_condition=condition)
    # Threads are the map's parallelism only: those of a queue made when the test holds are not taken.
    stage = dataclasses.replace(stage, num_threads=None)
    return dataclasses.replace(queue, enqueue_index=index, dequeue_index=index, stage=stage,
                               reads=queue.reads | frozenset(tested), condition=condition, kept=kept,
                               call_stores=frozenset(cstutil.name_uses(inner[position]).stores))


class _QueueReader:
    """Reads one queue's statements in the block; `read` raises Declined with the reason."""

    def __init__(self, body, imports, source_of, scope_loads, index, name, call, in_helper=False, line_of=None,
                 chosen: Optional[ChosenQueue] = None, makers: frozenset = frozenset()):
        self.line_of = line_of
        self.makers = makers  # reader_makers.names of the module
        self.chosen = chosen  # the queue class is chosen by a test: `call` is its RandomShuffleQueue
        self.listed = False  # the enqueue op is kept in a list of one: `ops = [q.enqueue(...)]`
        self.loop_count: Optional[str] = None  # the list is filled by a loop of readers, this many times
        self.op_list: Optional[int] = None  # the index of `ops = []` when it is appended to the list
        self.body, self.imports, self.source_of, self.scope_loads = body, imports, source_of, scope_loads
        self.index, self.name, self.call = index, name, call
        # In a queue helper the enqueued tensors are a parameter and the dequeue may be returned:
        # the records are written where it is called (QueueHelper.at_call).
        self.in_helper = in_helper
        self.threads_node: Optional[cst.BaseExpression] = None
        self.args: Dict[str, cst.BaseExpression] = {}
        self.dequeue_target: Optional[cst.BaseExpression] = None
        self.dequeue_call: Optional[cst.Call] = None
        self.kind = imports.resolve(call.func)
        self.calls: List[cst.Call] = [call] + ([chosen.other_call] if chosen is not None else [])
        self.enqueue_index: Optional[int] = None
        self.records_refused = ""

    def read(self) -> HandBuiltQueue:
        kind, name = self.kind, self.name
        args = self.args = bind_arguments(self.call, _SIGNATURES[kind], "its constructor")
        if "capacity" not in args:
            raise Declined("its constructor is given no capacity, which TensorFlow requires")
        if not is_none(args.get("shared_name")):
            raise Declined("it sets `shared_name=` (a queue shared between sessions), which tf.data has no "
                           "counterpart for")
        if self.chosen is not None:
            self._check_chosen(args)
        enqueue = runner = dequeue = None
        runner_indices: List[int] = []
        uses = 0
        for index in range(self.index + 1, len(self.body)):
            stmt = self.body[index]
            loads = cstutil.name_uses(stmt).loads
            if name in cstutil.name_uses(stmt).stores:
                raise Declined("`%s` is reassigned after the queue is built" % name)
            if name not in loads:
                continue
            uses += loads.count(name)
            put = _method_call(stmt, name, ("enqueue", "enqueue_many"))
            listed = self._listed_put(index) if put is None and enqueue is None else None
            if listed is None and put is None and enqueue is None and isinstance(stmt, cst.For):
                listed = self._loop_put(stmt)
            if listed is not None:
                put = listed[:2]
            take = _method_call(stmt, name, _DEQUEUES)
            if put and put[0] is not None and enqueue is None:
                enqueue = (index,) + put
                self.enqueue_index = index
                self.calls.append(put[1])
                if listed is not None:
                    self.listed, self.op_list = True, listed[2]
            elif take and dequeue is None:
                dequeue = (index,) + take
                self.dequeue_call = take[1]
                self.calls.append(take[1])
            elif runner is None and self._runner(stmt) is not None:
                runner = self._runner(stmt, record=True)
                runner_indices.append(index)
            elif isinstance(stmt, (cst.For, cst.While)):
                raise Declined(*self._loop_reason(stmt))
            elif isinstance(stmt, cst.FunctionDef) and any(
                    _method_call(inner, name, _DEQUEUES) for inner in cstutil.simple_statements(stmt)):
                raise Declined("it is dequeued in %s(), a function defined in its block, which may be called more "
                               "than once, each call's dequeue taking its own batches from the one queue; qmigrate "
                               "follows a dequeue in the block that builds the queue" % stmt.name.value,
                               "make the dataset and its one-shot iterator here, and call the iterator's get_next() "
                               "in %s() in place of the dequeue" % stmt.name.value)
            else:
                raise Declined(("`%s` is used by `%s`" + _USED_BEYOND) % (name, _short(self.source_of(_bare(stmt)))))
        if enqueue is None:
            raise Declined("it has no enqueue op in the same block (it is built in an if/else arm, or filled in "
                           "another function)")
        if dequeue is None:
            raise Declined("it is not dequeued in the same block (its dequeue is in an if/else arm or another "
                           "function)")
        if runner is None:
            raise Declined("no tf.train.QueueRunner in the same block runs its enqueue op (it may be fed from Python "
                           "with feed_dict, or run by hand)")
        if self.scope_loads[name] != uses:
            raise Declined("`%s` is also used outside its block" % name)
        enqueue_index, enqueue_target, enqueue_call = enqueue
        dequeue_index, dequeue_target, dequeue_call = dequeue
        self.dequeue_target = dequeue_target
        if not enqueue_index < dequeue_index:
            raise Declined("it is dequeued before its enqueue op is built")
        runner_call, ops, registered = runner
        threads = self._threads(enqueue_target, ops)
        runner_indices += self._registration(registered, runner_indices[0])
        tensors, many = self._tensors(enqueue_call, args)
        shapes = self._by_key(self._shapes(args.get("shapes"), tensors), args.get("names"), tensors)
        batching, stage, records = self._lower(dequeue_call, dequeue_target, args, threads, many, shapes, tensors)
        self._check_not_rebound(args, dequeue_call, dequeue_index, runner_indices[0])
        plumbing = (self.index,) + tuple(runner_indices) + ((self.op_list,) if self.op_list is not None else ())
        # What the dataset's stages read where it is built: the runner's thread count and the
        # constructor's buffer sizes and seed (none may be bound by the per-record code).
        staged = [self.threads_node] + [args.get(key) for key in ("capacity", "min_after_dequeue", "seed")]
        reads = frozenset(load for node in staged if node is not None for load in cstutil.name_uses(node).loads)
        if self.chosen is not None:
            condition = self.chosen.condition
            tested = frozenset(cstutil.name_uses(self.chosen.test).loads)
            reads |= tested
            for later in range(self.index + 1, len(self.body)):
                rebound = tested & cstutil.name_uses(self.body[later]).stores
                if rebound:
                    raise Declined("`%s`, which the test choosing its class reads, is reassigned after the if; the "
                                   "dataset tests it again where it is built" % sorted(rebound)[0])
            batching = dataclasses.replace(batching, shuffle_condition=condition) if batching else None
            stage = dataclasses.replace(stage, shuffle_condition=condition) if stage else None
        return HandBuiltQueue(name, plumbing, enqueue_index, dequeue_index, tensors,
                              batching, stage, records, tuple(self.calls), self.source_of(args["capacity"]),
                              self.records_refused, reads=reads)

    def _check_chosen(self, args) -> None:
        """The two queues a test chooses between must differ only in shuffling and how much they
        hold: same dtypes, shapes and names (their op names and capacities may differ: the dataset
        shuffles with the RandomShuffleQueue's buffer when the test holds, and a FIFOQueue's
        capacity changes no record's order)."""
        chosen = self.chosen
        test = chosen.test
        if not is_plain(test):
            raise Declined("its class is chosen by a test that reads an attribute, a call or a subscript (`%s`); "
                           "the dataset would test it again where it is built" % _short(self.source_of(test)),
                           "bind the test to a name before the if (`shuffle = %s`, `if shuffle:`), and qmigrate can "
                           "replace the queue" % _short(self.source_of(test)))
        other = bind_arguments(chosen.other_call, _SIGNATURES[_FIFO], "its FIFOQueue")
        if not is_none(other.get("shared_name")):
            raise Declined("its FIFOQueue sets `shared_name=` (a queue shared between sessions), which tf.data has "
                           "no counterpart for")
        same = lambda node: " ".join(self.source_of(node).split()) if node is not None else None  # noqa: E731
        for key in ("dtypes", "shapes", "names"):
            if same(args.get(key)) != same(other.get(key)):
                raise Declined("the RandomShuffleQueue and the FIFOQueue a test chooses between differ in `%s=`, "
                               "so they are not one queue that shuffles or not" % key,
                               "give both queues the same dtypes, shapes and names, and qmigrate can replace them "
                               "with one dataset that shuffles when the test holds")

    def _listed_put(self, index: int) -> Optional[Tuple[cst.Name, cst.Call, Optional[int]]]:
        """(list name, enqueue call, index of `ops = []` or None) for `ops = [queue.enqueue(...)]`, or
        `ops.append(queue.enqueue(...))` after `ops = []` with nothing in between using `ops`: a
        list of one enqueue op, run by one thread; or for `ops = [queue.enqueue(...) for _ in
        range(n)]`, n copies of it run at once (`_copies`, which sets loop_count)."""
        stmt = self.body[index]
        assign = cstutil.single_assign(stmt)
        if assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.ListComp):
            count = self._copies(assign[1])
            if count is None:
                return None
            self.loop_count = count
            return assign[0], assign[1].elt, None
        if assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], (cst.List, cst.Tuple)):
            elements = assign[1].elements
            if len(elements) == 1 and not isinstance(elements[0], cst.StarredElement) and self._is_put(
                    elements[0].value):
                return assign[0], elements[0].value, None
            return None
        value = cstutil.statement_value(stmt)
        if not (isinstance(cstutil.single_small(stmt), cst.Expr) and self._appends_put(value)):
            return None
        listed = value.func.value
        earlier = self._empty_list_before(listed, index)
        return (listed, value.args[0].value, earlier) if earlier is not None else None

    def _copies(self, listed: cst.ListComp) -> Optional[str]:
        """n for `[queue.enqueue(...) for _ in range(n)]`, whose enqueue op reads nothing the loop
        binds: n enqueue ops of the same tensors, run at once (as `[op] * n`); None otherwise."""
        loop = listed.for_in
        it = loop.iter
        if not (self._is_put(listed.elt) and loop.inner_for_in is None and not loop.ifs and loop.asynchronous is None
                and isinstance(it, cst.Call) and isinstance(it.func, cst.Name)
                and it.func.value in ("range", "xrange") and len(it.args) == 1 and not it.args[0].keyword
                and not it.args[0].star):
            return None
        if not isinstance(loop.target, cst.Name) or loop.target.value in cstutil.name_uses(listed.elt).loads:
            return None  # each copy may enqueue something of its own
        return self.source_of(it.args[0].value)

    def _appends_put(self, value: Optional[cst.BaseExpression]) -> bool:
        """Whether `value` is `ops.append(<enqueue op of this queue>)`."""
        return (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "append" and isinstance(value.func.value, cst.Name)
                and len(value.args) == 1 and not value.args[0].keyword and not value.args[0].star
                and self._is_put(value.args[0].value))

    def _empty_list_before(self, listed: cst.Name, index: int) -> Optional[int]:
        """The index of `listed = []`, when it is the last statement before `index` (after the
        queue's) to name `listed`; None otherwise."""
        for earlier in range(index - 1, self.index, -1):
            uses = cstutil.name_uses(self.body[earlier])
            if listed.value in uses.stores or listed.value in uses.loads:
                made = cstutil.single_assign(self.body[earlier])
                if (made and isinstance(made[0], cst.Name) and made[0].value == listed.value
                        and isinstance(made[1], cst.List) and not made[1].elements):
                    return earlier
                return None
        return None

    def _loop_put(self, loop: cst.For) -> Optional[Tuple[cst.Name, cst.Call, int]]:
        """(list name, enqueue call, index of `ops = []`) for a loop of readers each adding its enqueue op,
        `for _ in range(n): ...; ops.append(queue.enqueue(...))`, after `ops = []`: n enqueue ops,
        one reader each (the block recogniser checks the reads; the loop count is `loop_count`)."""
        it = loop.iter
        if not (isinstance(loop.target, cst.Name) and isinstance(it, cst.Call) and isinstance(it.func, cst.Name)
                and it.func.value in ("range", "xrange") and len(it.args) == 1 and not it.args[0].keyword
                and not it.args[0].star and isinstance(loop.body, cst.IndentedBlock) and loop.orelse is None):
            return None
        body = list(loop.body.body)
        last = cstutil.single_small(body[-1]) if body else None
        value = last.value if isinstance(last, cst.Expr) else None
        if not self._appends_put(value):
            return None
        if cstutil.name_uses(cst.IndentedBlock(body=body[:-1])).loads.count(self.name):
            return None  # the queue is used in the loop beyond its enqueue op
        if not self._reads_with_tf_reader(loop):
            return None  # _loop_reason says which call the reader comes from
        listed = value.func.value
        index = next(i for i, stmt in enumerate(self.body) if stmt is loop)
        earlier = self._empty_list_before(listed, index)
        if earlier is None:
            return None
        self.loop_count = self.source_of(it.args[0].value)
        return listed, value.args[0].value, earlier

    def _reads_with_tf_reader(self, loop: cst.For) -> bool:
        """Whether the loop reads once, with a TensorFlow reader made in it (`tf.XReader().read(...)`,
        or `reader = tf.XReader()` then `reader.read(...)`)."""
        reads = [c for c in cstutil.calls_of(loop.body) if isinstance(c.func, cst.Attribute)
                 and c.func.attr.value in ("read", "read_up_to")]
        if len(reads) != 1:
            return False
        made = reads[0].func.value
        if isinstance(made, cst.Name):
            bound = [a.value for a in cstutil.nodes_of(loop.body, cst.Assign) if len(a.targets) == 1
                     and isinstance(a.targets[0].target, cst.Name) and a.targets[0].target.value == made.value]
            made = bound[0] if len(bound) == 1 else None
        if reader_makers.may_make(made, self.makers):
            return True
        name = self.imports.resolve(made.func) or "" if isinstance(made, cst.Call) else ""
        return name.startswith("tensorflow.") and name.endswith("Reader")

    def _is_put(self, node: cst.BaseExpression) -> bool:
        return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name) and node.func.value.value == self.name
                and node.func.attr.value in ("enqueue", "enqueue_many"))

    def _loop_reason(self, loop) -> Tuple[str, str]:
        """(why, what to do) for a queue used in a loop: a loop of readers each enqueuing its records
        is named with its count, and with the call its reader comes from when that is no TensorFlow reader."""
        generic = "it is filled or drained in a loop (several readers' enqueue ops), which qmigrate does not follow yet"
        puts = [c for c in cstutil.calls_of(loop.body) if self._is_put(c)]
        reads = [c for c in cstutil.calls_of(loop.body) if isinstance(c.func, cst.Attribute)
                 and c.func.attr.value in ("read", "read_up_to") and isinstance(c.func.value, cst.Name)]
        if not (isinstance(loop, cst.For) and puts and len(reads) == 1):
            return generic, ""
        header = "for %s in %s:" % (_short(self.source_of(loop.target)), _short(self.source_of(loop.iter)))
        reason = ("it is filled by the enqueue ops of a loop of readers (`%s`%s), one reader each on the same queue "
                  "of files" % (header, self._at_line(loop)))
        reader = reads[0].func.value.value
        made = [a.value for a in cstutil.nodes_of(loop.body, cst.Assign) if len(a.targets) == 1
                and isinstance(a.targets[0].target, cst.Name) and a.targets[0].target.value == reader]
        if len(made) == 1 and isinstance(made[0], cst.Call) and not (
                self.imports.resolve(made[0].func) or "").endswith("Reader"):
            reason += (", and its reader comes from `%s`, not a TensorFlow reader class, so which dataset reads its "
                       "files cannot be seen" % _short(self.source_of(made[0])))
        else:
            reason += ", in a shape qmigrate does not follow into a hand-built queue"
        count = "n"
        if (isinstance(loop.iter, cst.Call) and isinstance(loop.iter.func, cst.Name) and loop.iter.func.value == "range"
                and len(loop.iter.args) == 1):
            count = _short(self.source_of(loop.iter.args[0].value))
        todo = ("read the files with dataset.interleave(<the reader's dataset class>, cycle_length=%s), %smap the "
                "per-record code and batch, in place of the readers, the queue and its dequeue"
                % (count, "shuffle(min_after_dequeue), " if self.kind == _SHUFFLE else ""))
        return reason, todo

    def _runner(self, stmt, record=False) -> Optional[Tuple[cst.Call, cst.BaseExpression, object]]:
        """(QueueRunner call, its enqueue ops, how it is registered) for `add_queue_runner(QueueRunner(q, ops))`
        (registered: True) or `runner = QueueRunner(q, ops)` (registered: the runner's name)."""
        value = cstutil.statement_value(stmt)
        assign = cstutil.single_assign(stmt)
        registered, add_call = True, None
        if isinstance(value, cst.Call) and self.imports.resolve(value.func) == _ADD_RUNNER:
            add_call = value
            add = bind_arguments(value, ("qr", "collection"), "add_queue_runner")
            if set(add) != {"qr"}:
                raise Declined("add_queue_runner puts its runner in another collection, whose threads are "
                               "started some other way")
            if record:
                self.calls.append(value)
            value = add["qr"]
        elif isinstance(value, cst.Call) and self._collected(value) is not None:
            add_call = value
            if record:
                self.calls += [value, value.args[0].value]
            value = self._collected(value)
        elif assign and isinstance(assign[0], cst.Name):
            registered = assign[0].value
        else:
            return None
        if not isinstance(value, cst.Call):
            return None
        if self.imports.resolve(value.func) != _RUNNER:
            first = value.args[0].value if value.args else None
            if isinstance(first, cst.Name) and first.value == self.name:
                # A QueueRunner subclass may override _run with a loop of its own.
                self.calls += [add_call] if add_call is not None else []
                raise Declined("its runner `%s` is not tf.train.QueueRunner itself (a subclass may run a loop of "
                               "its own)" % _short(self.source_of(value.func)))
            return None
        args = bind_arguments(value, _RUNNER_SIGNATURE, "its QueueRunner")
        if set(args) != {"queue", "enqueue_ops"} or not (
                isinstance(args["queue"], cst.Name) and args["queue"].value == self.name):
            raise Declined("its QueueRunner sets more than the queue and its enqueue ops (close or cancel ops, "
                           "exception types), which a dataset does not model")
        if record:
            self.calls.append(value)
        return value, args["enqueue_ops"], registered

    def _at_line(self, stmt) -> str:
        return ", line %d" % self.line_of(stmt) if self.line_of is not None else ""

    def _collected(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The runner of `tf.add_to_collection(tf.GraphKeys.QUEUE_RUNNERS, runner)`, what
        add_queue_runner does, spelled by hand."""
        name = self.imports.resolve(call.func) or ""
        if not (name.startswith("tensorflow.") and name.endswith(".add_to_collection")) or len(call.args) != 2 or any(
                arg.keyword is not None or arg.star for arg in call.args):
            return None
        if not (self.imports.resolve(call.args[0].value) or "").endswith("GraphKeys.QUEUE_RUNNERS"):
            return None
        return call.args[1].value

    def _registration(self, registered, runner_index: int) -> List[int]:
        """The index of `add_queue_runner(runner)` (or `add_to_collection(QUEUE_RUNNERS, runner)`)
        for a runner kept in a variable."""
        if registered is True:
            return []
        for index in range(runner_index + 1, len(self.body)):
            value = cstutil.statement_value(self.body[index])
            if not (isinstance(self.body[index], cst.SimpleStatementLine) and isinstance(value, cst.Call)
                    and isinstance(self.body[index].body[0], cst.Expr)):
                continue
            if (isinstance(value.func, cst.Attribute) and value.func.attr.value == "create_threads"
                    and isinstance(value.func.value, cst.Name) and value.func.value.value == registered):
                raise Declined("its QueueRunner `%s` starts its threads by hand (`%s`%s); register it with "
                               "tf.train.add_queue_runner instead, and qmigrate can replace the queue"
                               % (registered, _short(self.source_of(value)), self._at_line(self.body[index])))
            collected = self._collected(value)
            if collected is not None and isinstance(collected, cst.Name) and collected.value == registered:
                if self.scope_loads[registered] != 1:
                    raise Declined("its QueueRunner `%s` is used for more than add_to_collection" % registered)
                self.calls += [value, value.args[0].value]
                return [index]
            if (self.imports.resolve(value.func) == _ADD_RUNNER
                    and len(value.args) == 1 and isinstance(value.args[0].value, cst.Name)
                    and value.args[0].value.value == registered
                    and (value.args[0].keyword is None or value.args[0].keyword.value == "qr")):
                if self.scope_loads[registered] != 1:
                    raise Declined("its QueueRunner `%s` is used for more than add_queue_runner" % registered)
                self.calls.append(value)
                return [index]
        raise Declined("its QueueRunner `%s` is not registered with tf.train.add_queue_runner in the same block, "
                       "so its threads are started some other way" % registered)

    def _threads(self, enqueue_target, ops) -> Optional[str]:
        """How many enqueue ops the runner runs at once (None: one): `[op] * n`, `n * [op]`, `[op, op]`."""
        op = enqueue_target.value if isinstance(enqueue_target, cst.Name) else None
        count = None
        if isinstance(ops, cst.Name) and op is not None and ops.value == op and self.listed:
            # `ops = [queue.enqueue(...)]` handed over whole: one enqueue op, one thread.
            expected = 2 if self.op_list is not None else 1  # the append reads the list too
            if self.scope_loads[op] != expected:
                raise Declined("its list of enqueue ops `%s` is used for more than the QueueRunner" % op)
            if self.loop_count is not None:  # one enqueue op per reader of the loop, run at once
                self.threads_node = None
                return None if self.loop_count == "1" else self.loop_count
            return None
        if isinstance(ops, cst.BinaryOperation) and isinstance(ops.operator, cst.Multiply):
            for listed, times in ((ops.left, ops.right), (ops.right, ops.left)):
                if isinstance(listed, cst.List) and len(listed.elements) == 1:
                    ops, count, self.threads_node = listed, self.source_of(times), times
                    break
        if not (isinstance(ops, (cst.List, cst.Tuple)) and ops.elements and all(
                isinstance(e.value, cst.Name) and e.value.value == op for e in ops.elements)):
            raise Declined("its QueueRunner's enqueue ops are not a list of its one enqueue op (`[op] * n`)")
        if op is None or self.scope_loads[op] != len(ops.elements):
            raise Declined("its enqueue op is used for more than the QueueRunner (run by hand, or kept)")
        if count is None and len(ops.elements) > 1:
            count = str(len(ops.elements))
        return None if count == "1" else count

    def _tensors(self, call: cst.Call, args) -> Tuple[cst.BaseExpression, bool]:
        """What one enqueue op puts in (a name may be one tensor or a list of them: the recogniser
        takes literal lists, tuples and dicts, and a name only where it knows what it holds), and
        whether it is enqueue_many."""
        bound = bind_arguments(call, ("vals", "name"), "its enqueue")
        if "vals" not in bound:
            raise Declined("its enqueue has no values")
        vals = bound["vals"]
        if not is_none(args.get("names")):
            if not isinstance(vals, (cst.Dict, cst.Name)):
                raise Declined("a queue with `names=` is filled with something other than a dict")
        elif isinstance(vals, cst.Dict):
            raise Declined("it enqueues a dict into a queue without `names=`")
        many = call.func.attr.value == "enqueue_many"
        return vals, many

    def _shapes(self, shapes, tensors=None) -> Tuple[str, ...]:
        if self.in_helper and _own_shapes(shapes, tensors):
            return ()  # each component keeps the static shape it came with, as in the dataset
        if is_none(shapes):
            if self.kind == _PADDING:
                raise Declined("a PaddingFIFOQueue without shapes")
            return ()
        if not isinstance(shapes, (cst.List, cst.Tuple)) or any(
                isinstance(e, cst.StarredElement) for e in shapes.elements):
            raise Declined("its `shapes=` is computed, so the shape of each component cannot be read")
        return tuple(self.source_of(e.value) for e in shapes.elements)

    def _by_key(self, shapes, names, tensors) -> Tuple[str, ...]:
        """A named queue's shapes (in the order of `names=`) in the order of sorted keys, the order in
        which TensorFlow reads the shapes of a dict of tensors."""
        if not shapes or is_none(names):
            return shapes
        keys = [e.value.evaluated_value if isinstance(e.value, cst.SimpleString) else None
                for e in getattr(names, "elements", ())]
        given = sorted(e.key.evaluated_value for e in getattr(tensors, "elements", ())
                       if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString))
        if None in keys or len(keys) != len(shapes) or sorted(keys) != given:
            raise Declined("its `names=` is not a literal list of the keys of the literal dict it enqueues, so "
                           "which shape is whose cannot be read")
        by_name = dict(zip(keys, shapes))
        return tuple(by_name[key] for key in sorted(keys))

    def _lower(self, call, target, args, threads, many, shapes, tensors):
        """(batching, stage, record statements) the dequeue stands for."""
        method = call.func.attr.value
        bound = bind_arguments(call, ("n", "name") if method != "dequeue" else ("name",), "its " + method)
        shuffle = self.kind == _SHUFFLE
        seed = args.get("seed")
        batching = Batching(
            batch_size=self.source_of(bound["n"]) if "n" in bound else "1",
            num_threads=threads,
            # As shuffle_batch: a buffer of min_after_dequeue, what the queue mixed every dequeue with.
            # (with the dequeue's count as the batch size: a buffer of a multiple of it is no 0)
            shuffle_buffer=shuffle_buffer(dict(args, batch_size=bound["n"]) if "n" in bound else args,
                                          self.source_of) if shuffle else None,
            seed=None if is_none(seed) else self.source_of(seed),
            allow_smaller_final_batch=method == "dequeue_up_to",
            enqueue_many=many,
            dynamic_pad=self.kind == _PADDING,
            shapes=shapes)
        if method != "dequeue":
            if "n" not in bound:
                raise Declined("its %s has no count" % method)
            return batching, None, ()
        if self.in_helper:
            if many:
                raise Declined("it is filled with enqueue_many and dequeued one record at a time")
            return None, batching, None
        if many:
            raise Declined("it is filled with enqueue_many and dequeued one record at a time; qmigrate rewrites "
                           "enqueue_many with dequeue_many or dequeue_up_to")
        if target is None:
            raise Declined("its records are returned one at a time (`return queue.dequeue()`); the batching that "
                           "follows is in another function")
        try:
            return None, batching, self._records(target, tensors, shapes, not is_none(args.get("names")))
        except Declined as refused:  # it may still hold whole batches (a prefetch stage)
            self.records_refused = str(refused)
            return None, batching, None

    def _records(self, target, tensors, shapes, named) -> Tuple[str, ...]:
        """`image_d, label_d = image, label` for `image_d, label_d = queue.dequeue()`, and the static shapes
        the queue gave its components, set where it set them."""
        if isinstance(tensors, cst.Name):  # a dict of parse_single_example, into a queue with names=
            if not named:
                raise Declined("it enqueues `%s`, which may be one tensor or a list of them; write the list out"
                               % tensors.value)
            if shapes or not isinstance(target, cst.Name):
                raise Declined("its dequeue of a dict is unpacked, or sets shapes on components qmigrate "
                               "cannot name")
            return ("%s = %s" % (target.value, tensors.value),)
        if isinstance(tensors, cst.Dict):
            keys = [self.source_of(e.key) for e in tensors.elements if isinstance(e, cst.DictElement)]
            if len(keys) != len(tensors.elements):
                raise Declined("it enqueues a dict built with ** unpacking")
            values = None
        elif not isinstance(tensors, (cst.List, cst.Tuple)):
            raise Declined("it enqueues `%s`, not a list, tuple or dict of tensors qmigrate can name"
                           % self.source_of(tensors))
        else:
            keys, values = None, [self.source_of(e.value) for e in tensors.elements]
            if any(isinstance(e, cst.StarredElement) for e in tensors.elements):
                raise Declined("it enqueues tensors built with *unpacking")
        if isinstance(target, cst.Name):
            names = None
            if keys is not None:
                parts = ["%s[%s]" % (target.value, k) for k in keys]
                value = self.source_of(tensors)
            elif len(values) == 1:
                parts, value = [target.value], values[0]
            else:
                parts = ["%s[%d]" % (target.value, i) for i in range(len(values))]
                value = "[%s]" % ", ".join(values)
            statements = ["%s = %s" % (target.value, value)]
        elif isinstance(target, (cst.Tuple, cst.List)) and values is not None and len(values) > 1:
            names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
            if None in names or len(names) != len(values):
                raise Declined("its dequeue is unpacked into something other than one name per component")
            parts = names
            statements = ["%s = %s" % (", ".join(names), ", ".join(values))]
        else:
            raise Declined("its dequeue is not assigned to names")
        if shapes:
            if len(shapes) != len(parts):
                raise Declined("its `shapes=` does not give one shape per component")
            statements += ["%s.set_shape(%s)" % pair for pair in zip(parts, shapes)]
        return tuple(statements)

    def _check_not_rebound(self, args, dequeue_call, dequeue_index, runner_index) -> None:
        """The queue's arguments, and its runner's thread count, are read where the dataset is built
        (at the dequeue): nothing between may rebind them."""
        reads = set(cstutil.name_uses(self.call).loads) | set(cstutil.name_uses(dequeue_call).loads)
        threads = set(cstutil.name_uses(self.threads_node).loads) if self.threads_node is not None else set()
        for index in range(self.index + 1, dequeue_index):
            rebound = (reads | (threads if index > runner_index else set())) & cstutil.name_uses(self.body[index]).stores
            if rebound:
                raise Declined("`%s` is reassigned between the queue and its dequeue" % sorted(rebound)[0])


@dataclass(frozen=True)
class QueueHelper:
    """A function that passes the tensors it is given through one hand-built queue filled by
    queue runners, and returns what it dequeues:

        def _mix(tensors, capacity, min_after_dequeue, num_threads):
            queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes=[t.dtype for t in tensors])
            enqueue_op = queue.enqueue(tensors)
            runner = tf.train.QueueRunner(queue, [enqueue_op] * num_threads)
            tf.train.add_queue_runner(runner)
            mixed = queue.dequeue()
            for i in range(len(tensors)):  # optional: the static shapes the queue lost, set again
                mixed[i].set_shape(tensors[i].shape)
            return mixed

    `queue` is the queue as read in the helper, in the helper's terms; `at_call` writes it in a
    caller's. With `dequeue()` a call gives the records back one at a time (the queue's shuffle
    and threads join the batching that follows); with `dequeue_many`/`dequeue_up_to` the call is
    the batching.
    """

    function: cst.FunctionDef
    queue: HandBuiltQueue
    constructor: cst.BaseStatement
    args: Dict[str, cst.BaseExpression]  # the constructor's arguments, by parameter
    threads: Optional[cst.BaseExpression]  # `n` of `[enqueue] * n`; None: `queue` has the count
    dequeue_call: cst.Call
    calls: Tuple[cst.Call, ...]  # the helper's own queue calls

    @property
    def name(self) -> str:
        return self.function.name.value


@dataclass(frozen=True)
class RefusedHelper:
    """A function that builds a hand-built queue qmigrate cannot follow through its calls, and why."""

    function: cst.FunctionDef
    reason: str
    calls: Tuple[cst.Call, ...]
    enqueues_parameter: bool  # shaped like a queue helper: what it enqueues is given to it


class QueueHelpers:
    """The module's queue helpers, found on demand (most modules have none) and remembered."""

    def __init__(self, functions: Dict[str, cst.FunctionDef], imports: ImportMap,
                 source_of: Callable[[cst.CSTNode], str], line_of: Optional[Callable[[cst.CSTNode], int]],
                 module: Optional[cst.Module] = None):
        self.functions, self.imports, self.source_of, self.module = functions, imports, source_of, module
        self.line_of = line_of or (lambda node: 0)
        self._found: Dict[str, Union[QueueHelper, RefusedHelper, None]] = {}
        self._candidates: Optional[frozenset] = None
        self._containing: Optional[set] = None

    def contains_call(self, stmt: cst.CSTNode) -> bool:
        """Whether `stmt` holds a call of a function named like a queue-building one (one walk of the
        module, made the first time: blocks nest, and each would walk its statements again)."""
        if self._containing is None:
            walk = _Around(lambda call: isinstance(call.func, cst.Name) and call.func.value in self.candidates)
            if self.module is not None and self.candidates:
                cstutil.walk(self.module, walk)
            self._containing = walk.statements if self.module is not None else None
        return self._containing is None or id(stmt) in self._containing

    @property
    def candidates(self) -> frozenset:
        """Names of the module's functions that build a hand-built queue (computed once)."""
        if self._candidates is None:
            if self.module is not None:  # one walk, not one per function
                walk = _Around(lambda call: self.imports.resolve(call.func) in _SIGNATURES, outermost=True)
                cstutil.walk(self.module, walk)
                tops = {id(function) for function in self.functions.values()}
                self._candidates = frozenset(function.name.value for _, function in walk.function_of.values()
                                             if id(function) in tops)
            else:
                self._candidates = frozenset(
                    name for name, function in self.functions.items()
                    if any(self.imports.resolve(call.func) in _SIGNATURES for call in cstutil.calls_of(function)))
        return self._candidates

    def get(self, name: str) -> Union[QueueHelper, RefusedHelper, None]:
        """The helper named `name`, refused with its reason, or None (no such function, or it builds
        no hand-built queue)."""
        if name not in self._found:
            function = self.functions.get(name) if name in self.candidates else None
            self._found[name] = None if function is None else find_helper(
                function, self.imports, self.source_of, self.line_of)
        return self._found[name]

    def found(self) -> List[Union[QueueHelper, RefusedHelper]]:
        return [helper for helper in self._found.values() if helper is not None]


class _Around(cst.CSTVisitor):
    """One walk: the statements (at any depth) around each call `wanted` accepts, and the innermost
    (or outermost) function around it."""

    def __init__(self, wanted: Callable[[cst.Call], bool], outermost: bool = False):
        self.wanted, self.outermost = wanted, outermost  # outermost: the function around is the outermost one
        self.stack: List[cst.CSTNode] = []
        self.functions: List[cst.FunctionDef] = []
        self.statements: set = set()
        self.function_of: Dict[int, Tuple[cst.Call, cst.FunctionDef]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            self.stack.append(node)
        if isinstance(node, cst.FunctionDef):
            self.functions.append(node)
        if isinstance(node, cst.Call) and self.wanted(node):
            self.statements.update(id(stmt) for stmt in self.stack)
            if self.functions:
                self.function_of[id(node)] = (node, self.functions[0 if self.outermost else -1])
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            self.stack.pop()
        if isinstance(original_node, cst.FunctionDef):
            self.functions.pop()


def find_helper(function: cst.FunctionDef, imports: ImportMap, source_of, line_of
                ) -> Union[QueueHelper, RefusedHelper, None]:
    """`function` as a queue helper, refused with the reason, or None when it builds no hand-built
    queue. Never raises."""
    calls = tuple(call for call in cstutil.calls_of(function) if imports.resolve(call.func) in _SIGNATURES)
    if not calls:
        return None
    def refuse(reason: str) -> RefusedHelper:
        # Lines are read only here: the first one makes libcst work out every position in the module.
        where = "%s() (line %d)" % (function.name.value, line_of(function))
        return RefusedHelper(function, "it goes through %s, which %s" % (where, reason), calls, True)

    if not _enqueues_parameter(function):  # (said first: it is the cheap question)
        return RefusedHelper(function, "it goes through %s(), which builds a queue that is not filled with "
                             "tensors given to it" % function.name.value, calls, False)
    if len(calls) > 1:
        return refuse("builds %d queues; a queue helper that qmigrate follows builds one" % len(calls))
    if function.decorators:  # a call of it runs the decorator's code too
        return refuse("is decorated with `@%s`" % _short(source_of(function.decorators[0].decorator)))
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    if body and cstutil.is_docstring(body[0]):
        body = body[1:]
    assign = cstutil.single_assign(body[0]) if body else None
    if not (assign and assign[1] is calls[0] and isinstance(assign[0], cst.Name)):
        first = body[0] if body else function
        return refuse("does `%s` (line %d) before it builds its queue, or builds it inside another statement"
                      % (_short(source_of(_bare(first))), line_of(first)))
    if "capacity" not in _bind_or_empty(calls[0], _SIGNATURES[imports.resolve(calls[0].func)]):
        return refuse("builds its queue without a capacity qmigrate can read")
    params = function.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg or params.kwonly_params \
            or params.posonly_params:
        return refuse("takes * or keyword-only parameters")
    reader = _QueueReader(body, imports, source_of, Counter(cstutil.name_uses(function).loads), 0,
                          assign[0].value, calls[0], in_helper=True, line_of=line_of)
    try:
        queue = reader.read()
    except Declined as refused:
        return refuse("passes its tensors through a queue qmigrate cannot follow: %s" % refused)
    param_names = {p.name.value for p in params.params}
    tensors = queue.tensors
    parts = [tensors] if isinstance(tensors, cst.Name) else [e.value for e in getattr(tensors, "elements", ())]
    if not parts or not all(isinstance(p, cst.Name) and p.value in param_names for p in parts):
        return refuse("enqueues `%s`, which is not its parameter (or a literal list of them)"
                      % _short(source_of(tensors)))
    if not is_none(reader.args.get("names")):
        return refuse("builds a queue with `names=`; qmigrate follows queue helpers of lists of tensors")
    taken = set(queue.plumbing) | {queue.enqueue_index, queue.dequeue_index}
    target = reader.dequeue_target
    last = len(body) - 1
    for index, stmt in enumerate(body):
        if index in taken:
            continue
        if index == last and target is not None and isinstance(target, cst.Name) and _returns_name(stmt, target.value):
            continue
        if target is not None and index > queue.dequeue_index and _restores_shapes(stmt, target, tensors):
            continue
        return refuse("does `%s` (line %d), which is not part of a queue helper qmigrate follows (queue, enqueue, "
                      "QueueRunner, dequeue, shapes set again, return)" % (_short(source_of(_bare(stmt))),
                                                                          line_of(stmt)))
    if target is None and queue.dequeue_index != last:
        return refuse("returns its dequeue before its last statement")
    if target is not None and not _returns_name(body[last], getattr(target, "value", None)):
        return refuse("does not return what it dequeues")
    return QueueHelper(function, queue, body[0], reader.args, reader.threads_node, reader.dequeue_call,
                       tuple(reader.calls))


def _own_shapes(shapes, tensors) -> bool:
    """`[t.shape for t in tensors]` (or get_shape()): the shapes of the tensors enqueued."""
    if not (isinstance(shapes, cst.ListComp) and isinstance(tensors, cst.Name)):
        return False
    code = "".join(cst.Module([]).code_for_node(shapes).split())
    return bool(re.fullmatch(r"\[(\w+)(\.shape|\.get_shape\(\))for\1in%s\]" % re.escape(tensors.value), code))


def _bind_or_empty(call: cst.Call, signature) -> Dict[str, cst.BaseExpression]:
    try:
        return bind_arguments(call, signature, "its constructor")
    except Declined:
        return {}


def _enqueues_parameter(function: cst.FunctionDef) -> bool:
    """Whether some `.enqueue(...)`/`.enqueue_many(...)` of `function` puts in its parameters."""
    params = {p.name.value for p in function.params.params}
    for call in cstutil.calls_of(function):
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value in ("enqueue", "enqueue_many")
                and call.args):
            continue
        value = call.args[0].value
        parts = [e.value for e in value.elements] if isinstance(value, (cst.List, cst.Tuple)) else [value]
        if parts and all(isinstance(p, cst.Name) and p.value in params for p in parts):
            return True
    return False


def _bare(stmt: cst.CSTNode) -> cst.CSTNode:
    """The statement without the comments and blank lines above it."""
    return stmt.with_changes(leading_lines=()) if hasattr(stmt, "leading_lines") else stmt


def _returns_name(stmt: cst.BaseStatement, name: Optional[str]) -> bool:
    small = cstutil.single_small(stmt)
    return isinstance(small, cst.Return) and isinstance(small.value, cst.Name) and small.value.value == name


def _restores_shapes(stmt: cst.BaseStatement, target: cst.BaseExpression, tensors: cst.BaseExpression) -> bool:
    """`for i in range(len(tensors)): out[i].set_shape(tensors[i].shape)` (or the zip form, or
    get_shape()): the static shapes the queue lost, set again. The dataset keeps them, so the
    loop is dropped with the queue."""
    if not (isinstance(target, cst.Name) and isinstance(tensors, cst.Name) and isinstance(stmt, cst.For)):
        return False
    code = "".join(cst.Module([]).code_for_node(_bare(stmt)).split())
    out, given = re.escape(target.value), re.escape(tensors.value)
    shape = r"(\.shape|\.get_shape\(\))"
    return bool(re.fullmatch(r"for(\w+)inrange\(len\(%s\)\):%s\[\1\]\.set_shape\(%s\[\1\]%s\)" % (given, out, given, shape),
                             code)
                or re.fullmatch(r"for(\w+),(\w+)inzip\(%s,%s\):\1\.set_shape\(\2%s\)" % (out, given, shape), code))


def _caller_bound(scope: cst.CSTNode) -> frozenset:
    """Names a function binds (its locals and parameters): a module-level name a helper reads
    means something else there."""
    if not isinstance(scope, cst.FunctionDef):
        return frozenset()
    params = scope.params
    named = list(params.posonly_params) + list(params.params) + list(params.kwonly_params) + [
        p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return frozenset(cstutil.name_uses(scope.body).stores | {p.name.value for p in named})


def _helper_call(stmt: cst.BaseStatement, queue_helpers: QueueHelpers, scope_stores):
    """(helper, target or None, call) for `target = helper(...)` or `return helper(...)`."""
    value = cstutil.statement_value(stmt)
    assign = cstutil.single_assign(stmt)
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)) or value.func.value in scope_stores:
        return None
    if assign is None and not isinstance(cstutil.single_small(stmt), cst.Return):
        return None
    helper = queue_helpers.get(value.func.value)
    if helper is None:
        return None
    return helper, (assign[0] if assign else None), value


def at_call(helper: QueueHelper, body, index: int, target, call: cst.Call, module_names: set, bound_names: frozenset,
            line_of) -> HandBuiltQueue:
    """The helper's queue as its call at `body[index]` makes it, in the caller's terms; raises
    Declined with the reason."""
    code = lambda node: cst.Module([]).code_for_node(node)  # noqa: E731
    queue, name = helper.queue, helper.name
    try:
        arguments = helpers.bind_call(helper.function, call)
        definitions = helpers.reaching_definitions(helper.function, helper.constructor)

        def move(node):
            return helpers.move_expression(node, helper.function, helper.constructor, arguments, module_names,
                                           definitions=definitions, shadowed=bound_names)
        tensors = move(queue.tensors)
        own = _own_shapes(helper.args.get("shapes"), queue.tensors)  # nothing to set: see _QueueReader._shapes
        args = {key: move(value) for key, value in helper.args.items()
                if key in ("capacity", "min_after_dequeue", "seed") or (key == "shapes" and not own)}
        moved_threads = move(helper.threads) if helper.threads is not None else None
        threads = code(moved_threads) if moved_threads is not None else (queue.batching or queue.stage).num_threads
        count = None
        if queue.batching is not None:
            count = move(bind_arguments(helper.dequeue_call, ("n", "name"), "its dequeue")["n"])
    except helpers.NotMovable as error:
        raise Declined("its call of %s() cannot be written in the caller: %s" % (name, error))
    reads = set()
    for node in list(args.values()) + [n for n in (count, moved_threads) if n is not None]:
        reads |= set(cstutil.name_uses(node).loads)
    for stmt in body[index:]:
        rebound = reads & cstutil.name_uses(stmt).stores
        if rebound:
            raise Declined("`%s`, which %s() reads for its queue at line %d, is reassigned at line %d, before the "
                           "dataset that stands for the queue would read it" % (sorted(rebound)[0], name,
                                                                                line_of(body[index]), line_of(stmt)))
    shapes = tuple(code(e.value) for e in args["shapes"].elements) if not is_none(args.get("shapes")) else ()
    stage = queue.batching or queue.stage
    batching = dataclasses.replace(
        stage, num_threads=None if threads == "1" else threads,
        shuffle_buffer=shuffle_buffer(dict(args, batch_size=code(count) if count is not None else stage.batch_size),
                                      code) if stage.shuffle_buffer else None,
        seed=None if is_none(args.get("seed")) else code(args["seed"]),
        shapes=shapes, batch_size=code(count) if count is not None else stage.batch_size)
    if queue.batching is not None:  # the call is the batching: the recogniser reads the element from `tensors`
        return HandBuiltQueue(name, (), index, index, tensors, batching, None, (), (call,), code(args["capacity"]),
                              reads=frozenset(reads), helper=name)
    if target is None:
        raise Declined("its records come back from %s() in a `return`, one at a time: the batching that follows "
                       "is in another function" % name)
    records, structure = _helper_records(target, tensors, shapes, body, index, name, line_of)
    return HandBuiltQueue(name, (), index, index, tensors, None, batching, records, (call,), code(args["capacity"]),
                          reads=frozenset(reads), structure=structure, helper=name)


def _helper_records(target, tensors, shapes, body, index, name, line_of):
    """(record statements, structure) for `target = helper(tensors, ...)` whose queue is dequeued
    one record at a time: the dequeue gives back the list it was given (the tensor itself for a
    list of one)."""
    code = lambda node: cst.Module([]).code_for_node(node)  # noqa: E731
    if isinstance(tensors, (cst.List, cst.Tuple)):
        if any(isinstance(e, cst.StarredElement) for e in tensors.elements):
            raise Declined("it passes %s() tensors built with *unpacking" % name)
        values = [code(e.value) for e in tensors.elements]
        whole = "[%s]" % ", ".join(values)
    elif isinstance(tensors, cst.Name):
        bound = _list_binding(body, index, tensors.value)
        if bound is None:
            raise Declined("it passes %s() `%s`, whose structure (a list of how many tensors) qmigrate cannot see "
                           "before line %d" % (name, tensors.value, line_of(body[index])))
        values = ["%s[%d]" % (tensors.value, i) for i in range(bound)]
        whole = "list(%s)" % tensors.value
    else:
        raise Declined("it passes %s() `%s`, which is not a list of tensors" % (name, _short(code(tensors))))
    if not values:
        raise Declined("it passes %s() an empty list" % name)
    structure = None
    if isinstance(target, cst.Name):
        if len(values) == 1:  # a queue of one component gives back the tensor itself
            parts, statements = [target.value], ["%s = %s" % (target.value, values[0])]
        else:
            parts = ["%s[%d]" % (target.value, i) for i in range(len(values))]
            statements, structure = ["%s = %s" % (target.value, whole)], (target.value, len(values))
    elif isinstance(target, (cst.Tuple, cst.List)) and len(values) > 1:
        parts = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        if None in parts or len(parts) != len(values):
            raise Declined("the result of %s() is unpacked into something other than one name per tensor" % name)
        statements = ["%s = %s" % (", ".join(parts), ", ".join(values))]
    else:
        raise Declined("the result of %s() is not assigned to names" % name)
    if shapes:
        if len(shapes) != len(parts):
            raise Declined("the queue of %s() does not give one shape per tensor" % name)
        statements += ["%s.set_shape(%s)" % pair for pair in zip(parts, shapes)]
    return tuple(statements), structure


def _list_binding(body, index: int, name: str) -> Optional[int]:
    """The length of the literal list or tuple `name` was last bound to before `body[index]`,
    when nothing in between read or bound it (an append would change its length); else None."""
    for stmt in reversed(body[:index]):
        uses = cstutil.name_uses(stmt)
        if name not in uses.stores and name not in uses.loads:
            continue
        assign = cstutil.single_assign(stmt)
        if not (assign and isinstance(assign[0], cst.Name) and assign[0].value == name
                and isinstance(assign[1], (cst.List, cst.Tuple)) and name not in uses.loads
                and not any(isinstance(e, cst.StarredElement) for e in assign[1].elements)):
            return None
        return len(assign[1].elements)
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def merge(stage: Optional[Batching], batching: Batching) -> Batching:
    """The batching of records that went through a hand-built queue one at a time (`dequeue()`)
    before this batching: its shuffle, seed and threads join it. Raises ValueError (the reason)
    for what one dataset cannot express."""
    if stage is None:
        return batching
    if stage.shuffle_buffer and batching.shuffle_buffer:
        raise ValueError("records are shuffled twice (a RandomShuffleQueue, then shuffle_batch); one dataset has "
                         "one shuffle stage")
    return dataclasses.replace(
        batching,
        shuffle_buffer=batching.shuffle_buffer or stage.shuffle_buffer,
        shuffle_condition=batching.shuffle_condition if batching.shuffle_buffer else stage.shuffle_condition,
        seed=batching.seed if batching.shuffle_buffer else stage.seed,
        # The map runs the per-record code of both stages: with the batching's threads, else the queue's.
        num_threads=batching.num_threads or stage.num_threads)


# The end of the reason of a queue whose block uses it for more than one enqueue op, QueueRunner and dequeue.
_USED_BEYOND = ", which a dataset has no counterpart for (one enqueue op, one QueueRunner and one dequeue are followed)"


def used_beyond(reason: str) -> bool:
    """Whether `reason` is that of a queue its block uses for more (a statement qmigrate does not
    read as one of its parts, such as an if/else whose arms fill and drain it)."""
    return reason.endswith(_USED_BEYOND)


NOT_FED = ("what it enqueues is not the record of a producer → reader chain in the same block (tensors from "
            "elsewhere, or a queue fed from Python)")


def reasons(queues: BlockQueues):
    """(call, why it stays) for every call of the block's hand-built queues, for those no pipeline took."""
    if not (queues.accepted or queues.refused or queues.unplaced):
        return
    helper_reason, followed = queues.helper_reason()
    for queue in queues.accepted.values():
        for call in queue.calls:
            yield call, helper_reason or NOT_FED
    for refused in list(queues.refused.values()) + queues.unplaced:
        for call in refused.calls:
            yield call, helper_reason if followed else refused.reason


def todos(queues: BlockQueues):
    """(constructor call, what to do) for the block's refused queues whose refusal says more than the rule's advice."""
    for refused in list(queues.refused.values()) + queues.unplaced:
        for call in refused.constructors if refused.todo else ():
            yield call, refused.todo


_ORIGIN = ("what it enqueues, `%s`, %s; qmigrate replaces a hand-built queue whose records a producer → reader "
           "chain reads in the same block, directly or through a record source of the same file (or a queue helper "
           "called with such records)")
# Said of a call whose function is imported: the records are made in another module (not followed).
_IMPORTED = ", a function of the imported module `%s`"
_PYTHON_SOURCES = {
    "tensorflow.placeholder": "is a tf.placeholder (line %d): data fed from Python, which "
                              "tf.data.Dataset.from_generator can take over",
    "tensorflow.py_func": "comes from tf.py_func (line %d): records made by Python code, which "
                          "tf.data.Dataset.from_generator can take over",
    "tensorflow.numpy_function": "comes from tf.numpy_function (line %d): records made by Python code, which "
                                 "tf.data.Dataset.from_generator can take over",
}


def origin_reasons(module: cst.Module, imports: ImportMap, line_of: Callable[[cst.CSTNode], int],
                   wanted: set, todos: Optional[Dict[int, str]] = None) -> Dict[int, str]:
    """id(constructor call) -> where the tensors a hand-built queue enqueues come from, for the
    queues (constructor calls, `wanted` by id) of functions that enqueue one name (or a literal list of names) with one enqueue op: a
    placeholder, tf.py_func, a call of another function or module, or a parameter (and the lines
    that call its function). Never raises."""
    found: Dict[int, str] = {}
    around = _Around(lambda call: id(call) in wanted)
    cstutil.walk(module, around)
    callers: Optional[Dict[str, List[Tuple[cst.Call, cst.FunctionDef]]]] = None
    functions: Optional[List[cst.FunctionDef]] = None
    for function in {id(f): f for _, f in around.function_of.values()}.values():
        for assign in cstutil.nodes_of(function, cst.Assign):
            call = assign.value
            if not (isinstance(call, cst.Call) and id(call) in around.function_of
                    and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
                continue
            queue = assign.targets[0].target.value
            puts = [c for c in cstutil.calls_of(function) if isinstance(c.func, cst.Attribute)
                    and isinstance(c.func.value, cst.Name) and c.func.value.value == queue
                    and c.func.attr.value in ("enqueue", "enqueue_many") and c.args]
            if len(puts) != 1:
                continue
            # Run by a QueueRunner's threads, the enqueue op makes its tensors anew every run: records.
            run = any(imports.resolve(c.func) == _RUNNER and queue in cstutil.name_uses(c).loads
                      for c in cstutil.calls_of(function))
            value = puts[0].args[0].value
            names = [value] if isinstance(value, cst.Name) else [
                e.value for e in getattr(value, "elements", ()) if isinstance(getattr(e, "value", None), cst.Name)]
            for name in names:
                if name.value in {p.name.value for p in function.params.params}:
                    if callers is None:
                        functions = cstutil.functions_in(module)
                        callers = _callers(functions)
                    calls = callers.get(function.name.value, [])
                    where = ("is a parameter of %s(), called at %s" % (function.name.value, "; ".join(
                        _passed(caller, in_function, function, name.value, imports, line_of)
                        for caller, in_function in calls))
                             if calls else "is a parameter of %s(), which no function of this file calls"
                             % function.name.value)
                    found[id(call)] = _ORIGIN % (name.value, where) + (
                        _other_uses(function, queue, line_of) if run else "")
                    break
                source = _binding_call(function, name.value, line_of(puts[0]), line_of)
                if source is not None:
                    made = imports.resolve(source.func) or ""
                    text = _PYTHON_SOURCES.get(made)
                    where = text % line_of(source) if text else "comes from `%s()` (line %d)" % (
                        _short(cst.Module([]).code_for_node(source.func)), line_of(source)) + (
                        _IMPORTED % made.rpartition(".")[0] if "." in made and not made.startswith("tensorflow.")
                        else "")
                    found[id(call)] = _ORIGIN % (name.value, where) + (
                        _other_uses(function, queue, line_of) if run else "")
                    if run and not text and not made.startswith("tensorflow.") and todos is not None:
                        todos[id(call)] = _ELSEWHERE_TODO % _short(cst.Module([]).code_for_node(source.func))
                    break
    return found


_ELSEWHERE_TODO = ("have %s() give back the tf.data dataset of its records (their per-record code in a map) instead "
                   "of tensors, apply here what the queue did (shuffle(min_after_dequeue) for a RandomShuffleQueue, "
                   "num_parallel_calls for its runner's threads, batch for dequeue_many) and take the records from "
                   "the dataset's iterator; or feed it from Python with from_generator if they are made in Python")


_QUEUE_OPS = ("enqueue", "enqueue_many") + _DEQUEUES


def _other_uses(function: cst.FunctionDef, queue: str, line_of) -> str:
    """`; and ...` naming the first call of a method of `queue` other than its enqueue and dequeue
    ops (`queue.size(name=...)`, `queue.close()`): what a dataset standing for it could not give."""
    for call in cstutil.calls_of(function):
        if (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
                and call.func.value.value == queue and call.func.attr.value not in _QUEUE_OPS):
            named = any(arg.keyword is not None and arg.keyword.value == "name" for arg in call.args)
            return ("; and `%s` (line %d) uses the queue itself%s, which a dataset standing for it has no "
                    "counterpart for" % (_short(cst.Module([]).code_for_node(call)), line_of(call),
                                         " (a node named for other code to read)" if named else ""))
    return ""


def _callers(functions: List[cst.FunctionDef]) -> Dict[str, List[Tuple[cst.Call, cst.FunctionDef]]]:
    """Calls of plain names, each with the innermost function it is made in."""
    innermost: Dict[int, Tuple[cst.Call, cst.FunctionDef]] = {}
    for function in functions:  # outer functions come first: a nested one overwrites them
        for call in cstutil.calls_of(function):
            if isinstance(call.func, cst.Name):
                innermost[id(call)] = (call, function)
    callers: Dict[str, List[Tuple[cst.Call, cst.FunctionDef]]] = {}
    for call, function in innermost.values():
        callers.setdefault(call.func.value, []).append((call, function))
    return callers


def _passed(call: cst.Call, caller: cst.FunctionDef, callee: cst.FunctionDef, param: str, imports, line_of) -> str:
    """`line 240` with what the call passes for `param`, when that comes from Python (a placeholder,
    tf.py_func) or from another function's call."""
    text = "line %d" % line_of(call)
    try:
        argument = helpers.bind_call(callee, call).get(param)
    except helpers.NotMovable:
        return text
    if not isinstance(argument, cst.Name):
        return text
    source = _binding_call(caller, argument.value, line_of(call), line_of)
    if source is None:
        return text
    made = _PYTHON_SOURCES.get(imports.resolve(source.func) or "")
    where = made % line_of(source) if made else "comes from `%s()` (line %d)" % (
        _short(cst.Module([]).code_for_node(source.func)), line_of(source))
    return "%s, where `%s` %s" % (text, argument.value, where.split(":")[0])


def _binding_call(function: cst.FunctionDef, name: str, before: int, line_of) -> Optional[cst.Call]:
    """The call whose result the last assignment to `name` in `function` before line `before` binds
    (`name = f(...)` or `a, name = f(...)`), if that assignment is one."""
    last = None
    for assign in cstutil.nodes_of(function, cst.Assign):
        if line_of(assign) >= before:
            continue
        for target in assign.targets:
            bound = [target.target] if isinstance(target.target, cst.Name) else [
                e.value for e in getattr(target.target, "elements", ())]
            if any(isinstance(b, cst.Name) and b.value == name for b in bound):
                last = assign
    return last.value if last is not None and isinstance(last.value, cst.Call) else None
