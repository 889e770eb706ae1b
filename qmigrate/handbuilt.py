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
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from qmigrate import cstutil, queue_roles
from qmigrate.model import Batching
from qmigrate.names import ImportMap
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


@dataclass(frozen=True)
class RefusedQueue:
    """A hand-built queue of this block that is left as it is, and why."""

    enqueue_index: Optional[int]
    calls: Tuple[cst.Call, ...]
    reason: str


@dataclass
class BlockQueues:
    """The hand-built queues of one block: by the index of their enqueue statement."""

    accepted: Dict[int, HandBuiltQueue] = dataclasses.field(default_factory=dict)
    refused: Dict[int, RefusedQueue] = dataclasses.field(default_factory=dict)
    unplaced: List[RefusedQueue] = dataclasses.field(default_factory=list)  # refused before an enqueue was found

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


class _Refused(Exception):
    pass


def _bind(call: cst.Call, signature: Sequence[str], what: str) -> Dict[str, cst.BaseExpression]:
    bound = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise _Refused("%s passes arguments with * or **, which cannot be read statically" % what)
        name = arg.keyword.value if arg.keyword is not None else (
            signature[position] if position < len(signature) else None)
        if name not in signature:
            raise _Refused("%s passes an argument TensorFlow does not take" % what)
        bound[name] = arg.value
    return bound


def _is_none(node: Optional[cst.BaseExpression]) -> bool:
    return node is None or (isinstance(node, cst.Name) and node.value == "None")


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
         source_of: Callable[[cst.CSTNode], str]) -> BlockQueues:
    """The hand-built queues constructed in `body` (the statements of one block of `scope`).

    A queue whose every dequeue is fetched by `session.run` is not input (QM003) and is not
    returned at all. Never raises.
    """
    found = BlockQueues()
    constructors = []
    for index, stmt in enumerate(body):
        assign = cstutil.single_assign(stmt)
        if (assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call)
                and imports.resolve(assign[1].func) in _SIGNATURES):
            constructors.append((index, assign[0].value, assign[1]))
    if not constructors:
        return found
    fetched = queue_roles.fetched_only(scope, [call for _, _, call in constructors])
    scope_loads = Counter(cstutil.name_uses(scope).loads)
    for index, name, call in constructors:
        if id(call) in fetched:
            continue
        reader = _QueueReader(body, imports, source_of, scope_loads, index, name, call)
        try:
            queue = reader.read()
        except _Refused as refused:
            item = RefusedQueue(reader.enqueue_index, tuple(reader.calls), str(refused))
            if reader.enqueue_index is None:
                found.unplaced.append(item)
            else:
                found.refused[reader.enqueue_index] = item
            continue
        found.accepted[queue.enqueue_index] = queue
    return found


class _QueueReader:
    """Reads one queue's statements in the block; `read` raises _Refused with the reason."""

    def __init__(self, body, imports, source_of, scope_loads, index, name, call):
        self.body, self.imports, self.source_of, self.scope_loads = body, imports, source_of, scope_loads
        self.index, self.name, self.call = index, name, call
        self.kind = imports.resolve(call.func)
        self.calls: List[cst.Call] = [call]
        self.enqueue_index: Optional[int] = None
        self.records_refused = ""

    def read(self) -> HandBuiltQueue:
        kind, name = self.kind, self.name
        args = _bind(self.call, _SIGNATURES[kind], "its constructor")
        if not _is_none(args.get("shared_name")):
            raise _Refused("it sets `shared_name=` (a queue shared between sessions), which tf.data has no "
                           "counterpart for")
        enqueue = runner = dequeue = None
        runner_indices: List[int] = []
        uses = 0
        for index in range(self.index + 1, len(self.body)):
            stmt = self.body[index]
            loads = cstutil.name_uses(stmt).loads
            if name in cstutil.name_uses(stmt).stores:
                raise _Refused("`%s` is reassigned after the queue is built" % name)
            if name not in loads:
                continue
            uses += loads.count(name)
            put = _method_call(stmt, name, ("enqueue", "enqueue_many"))
            take = _method_call(stmt, name, _DEQUEUES)
            if put and put[0] is not None and enqueue is None:
                enqueue = (index,) + put
                self.enqueue_index = index
                self.calls.append(put[1])
            elif take and dequeue is None:
                dequeue = (index,) + take
                self.calls.append(take[1])
            elif runner is None and self._runner(stmt) is not None:
                runner = self._runner(stmt, record=True)
                runner_indices.append(index)
            elif isinstance(stmt, (cst.For, cst.While)):
                raise _Refused("it is filled or drained in a loop (several readers' enqueue ops), which qmigrate "
                               "does not follow yet")
            else:
                raise _Refused("`%s` is used by `%s`, which a dataset has no counterpart for (one enqueue op, "
                               "one QueueRunner and one dequeue are followed)"
                               % (name, _short(self.source_of(stmt))))
        if enqueue is None:
            raise _Refused("it has no enqueue op in the same block (it is built in an if/else arm, or filled in "
                           "another function)")
        if dequeue is None:
            raise _Refused("it is not dequeued in the same block (its dequeue is in an if/else arm or another "
                           "function)")
        if runner is None:
            raise _Refused("no tf.train.QueueRunner in the same block runs its enqueue op (it may be fed from Python "
                           "with feed_dict, or run by hand)")
        if self.scope_loads[name] != uses:
            raise _Refused("`%s` is also used outside its block" % name)
        enqueue_index, enqueue_target, enqueue_call = enqueue
        dequeue_index, dequeue_target, dequeue_call = dequeue
        if not enqueue_index < dequeue_index:
            raise _Refused("it is dequeued before its enqueue op is built")
        runner_call, ops, registered = runner
        threads = self._threads(enqueue_target, ops)
        runner_indices += self._registration(registered, runner_indices[0])
        tensors, many = self._tensors(enqueue_call, args)
        shapes = self._by_key(self._shapes(args.get("shapes")), args.get("names"), tensors)
        batching, stage, records = self._lower(dequeue_call, dequeue_target, args, threads, many, shapes, tensors)
        self._check_not_rebound(args, dequeue_call, dequeue_index)
        return HandBuiltQueue(name, (self.index,) + tuple(runner_indices), enqueue_index, dequeue_index, tensors,
                              batching, stage, records, tuple(self.calls), self.source_of(args["capacity"]),
                              self.records_refused)

    def _runner(self, stmt, record=False) -> Optional[Tuple[cst.Call, cst.BaseExpression, object]]:
        """(QueueRunner call, its enqueue ops, how it is registered) for `add_queue_runner(QueueRunner(q, ops))`
        (registered: True) or `runner = QueueRunner(q, ops)` (registered: the runner's name)."""
        value = cstutil.statement_value(stmt)
        assign = cstutil.single_assign(stmt)
        registered, add_call = True, None
        if isinstance(value, cst.Call) and self.imports.resolve(value.func) == _ADD_RUNNER:
            add_call = value
            add = _bind(value, ("qr", "collection"), "add_queue_runner")
            if set(add) != {"qr"}:
                raise _Refused("add_queue_runner puts its runner in another collection, whose threads are "
                               "started some other way")
            if record:
                self.calls.append(value)
            value = add["qr"]
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
                raise _Refused("its runner `%s` is not tf.train.QueueRunner itself (a subclass may run a loop of "
                               "its own)" % _short(self.source_of(value.func)))
            return None
        args = _bind(value, _RUNNER_SIGNATURE, "its QueueRunner")
        if set(args) != {"queue", "enqueue_ops"} or not (
                isinstance(args["queue"], cst.Name) and args["queue"].value == self.name):
            raise _Refused("its QueueRunner sets more than the queue and its enqueue ops (close or cancel ops, "
                           "exception types), which a dataset does not model")
        if record:
            self.calls.append(value)
        return value, args["enqueue_ops"], registered

    def _registration(self, registered, runner_index: int) -> List[int]:
        """The index of `add_queue_runner(runner)` for a runner kept in a variable."""
        if registered is True:
            return []
        for index in range(runner_index + 1, len(self.body)):
            value = cstutil.statement_value(self.body[index])
            if (isinstance(self.body[index], cst.SimpleStatementLine) and isinstance(value, cst.Call)
                    and isinstance(self.body[index].body[0], cst.Expr)
                    and self.imports.resolve(value.func) == _ADD_RUNNER
                    and len(value.args) == 1 and isinstance(value.args[0].value, cst.Name)
                    and value.args[0].value.value == registered and value.args[0].keyword in (None,)):
                if self.scope_loads[registered] != 1:
                    raise _Refused("its QueueRunner `%s` is used for more than add_queue_runner" % registered)
                self.calls.append(value)
                return [index]
        raise _Refused("its QueueRunner `%s` is not registered with tf.train.add_queue_runner in the same block, "
                       "so its threads are started some other way" % registered)

    def _threads(self, enqueue_target, ops) -> Optional[str]:
        """How many enqueue ops the runner runs at once (None: one): `[op] * n`, `n * [op]`, `[op, op]`."""
        op = enqueue_target.value if isinstance(enqueue_target, cst.Name) else None
        count = None
        if isinstance(ops, cst.BinaryOperation) and isinstance(ops.operator, cst.Multiply):
            for listed, times in ((ops.left, ops.right), (ops.right, ops.left)):
                if isinstance(listed, cst.List) and len(listed.elements) == 1:
                    ops, count = listed, self.source_of(times)
                    break
        if not (isinstance(ops, (cst.List, cst.Tuple)) and ops.elements and all(
                isinstance(e.value, cst.Name) and e.value.value == op for e in ops.elements)):
            raise _Refused("its QueueRunner's enqueue ops are not a list of its one enqueue op (`[op] * n`)")
        if op is None or self.scope_loads[op] != len(ops.elements):
            raise _Refused("its enqueue op is used for more than the QueueRunner (run by hand, or kept)")
        if count is None and len(ops.elements) > 1:
            count = str(len(ops.elements))
        return None if count == "1" else count

    def _tensors(self, call: cst.Call, args) -> Tuple[cst.BaseExpression, bool]:
        """What one enqueue op puts in (a name may be one tensor or a list of them: the recogniser
        takes literal lists, tuples and dicts, and a name only where it knows what it holds), and
        whether it is enqueue_many."""
        bound = _bind(call, ("vals", "name"), "its enqueue")
        if "vals" not in bound:
            raise _Refused("its enqueue has no values")
        vals = bound["vals"]
        if not _is_none(args.get("names")):
            if not isinstance(vals, (cst.Dict, cst.Name)):
                raise _Refused("a queue with `names=` is filled with something other than a dict")
        elif isinstance(vals, cst.Dict):
            raise _Refused("it enqueues a dict into a queue without `names=`")
        many = call.func.attr.value == "enqueue_many"
        return vals, many

    def _shapes(self, shapes) -> Tuple[str, ...]:
        if _is_none(shapes):
            if self.kind == _PADDING:
                raise _Refused("a PaddingFIFOQueue without shapes")
            return ()
        if not isinstance(shapes, (cst.List, cst.Tuple)) or any(
                isinstance(e, cst.StarredElement) for e in shapes.elements):
            raise _Refused("its `shapes=` is computed, so the shape of each component cannot be read")
        return tuple(self.source_of(e.value) for e in shapes.elements)

    def _by_key(self, shapes, names, tensors) -> Tuple[str, ...]:
        """A named queue's shapes (in the order of `names=`) in the order of sorted keys, the order in
        which TensorFlow reads the shapes of a dict of tensors."""
        if not shapes or _is_none(names):
            return shapes
        keys = [e.value.evaluated_value if isinstance(e.value, cst.SimpleString) else None
                for e in getattr(names, "elements", ())]
        given = sorted(e.key.evaluated_value for e in getattr(tensors, "elements", ())
                       if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString))
        if None in keys or len(keys) != len(shapes) or sorted(keys) != given:
            raise _Refused("its `names=` is not a literal list of the keys of the literal dict it enqueues, so "
                           "which shape is whose cannot be read")
        by_name = dict(zip(keys, shapes))
        return tuple(by_name[key] for key in sorted(keys))

    def _lower(self, call, target, args, threads, many, shapes, tensors):
        """(batching, stage, record statements) the dequeue stands for."""
        method = call.func.attr.value
        bound = _bind(call, ("n", "name") if method != "dequeue" else ("name",), "its " + method)
        shuffle = self.kind == _SHUFFLE
        seed = args.get("seed")
        batching = Batching(
            batch_size=self.source_of(bound["n"]) if "n" in bound else "1",
            num_threads=threads,
            # As shuffle_batch: a buffer of min_after_dequeue, what the queue mixed every dequeue with.
            shuffle_buffer=shuffle_buffer(args, self.source_of) if shuffle else None,
            seed=None if _is_none(seed) else self.source_of(seed),
            allow_smaller_final_batch=method == "dequeue_up_to",
            enqueue_many=many,
            dynamic_pad=self.kind == _PADDING,
            shapes=shapes)
        if method != "dequeue":
            if "n" not in bound:
                raise _Refused("its %s has no count" % method)
            return batching, None, ()
        if many:
            raise _Refused("it is filled with enqueue_many and dequeued one record at a time; qmigrate rewrites "
                           "enqueue_many with dequeue_many or dequeue_up_to")
        if target is None:
            raise _Refused("its records are returned one at a time (`return queue.dequeue()`); the batching that "
                           "follows is in another function")
        try:
            return None, batching, self._records(target, tensors, shapes, not _is_none(args.get("names")))
        except _Refused as refused:  # it may still hold whole batches (a prefetch stage)
            self.records_refused = str(refused)
            return None, batching, None

    def _records(self, target, tensors, shapes, named) -> Tuple[str, ...]:
        """`image_d, label_d = image, label` for `image_d, label_d = queue.dequeue()`, and the static shapes
        the queue gave its components, set where it set them."""
        if isinstance(tensors, cst.Name):  # a dict of parse_single_example, into a queue with names=
            if not named:
                raise _Refused("it enqueues `%s`, which may be one tensor or a list of them; write the list out"
                               % tensors.value)
            if shapes or not isinstance(target, cst.Name):
                raise _Refused("its dequeue of a dict is unpacked, or sets shapes on components qmigrate "
                               "cannot name")
            return ("%s = %s" % (target.value, tensors.value),)
        if isinstance(tensors, cst.Dict):
            keys = [self.source_of(e.key) for e in tensors.elements if isinstance(e, cst.DictElement)]
            if len(keys) != len(tensors.elements):
                raise _Refused("it enqueues a dict built with ** unpacking")
            values = None
        else:
            keys, values = None, [self.source_of(e.value) for e in tensors.elements]
            if any(isinstance(e, cst.StarredElement) for e in tensors.elements):
                raise _Refused("it enqueues tensors built with *unpacking")
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
                raise _Refused("its dequeue is unpacked into something other than one name per component")
            parts = names
            statements = ["%s = %s" % (", ".join(names), ", ".join(values))]
        else:
            raise _Refused("its dequeue is not assigned to names")
        if shapes:
            if len(shapes) != len(parts):
                raise _Refused("its `shapes=` does not give one shape per component")
            statements += ["%s.set_shape(%s)" % pair for pair in zip(parts, shapes)]
        return tuple(statements)

    def _check_not_rebound(self, args, dequeue_call, dequeue_index) -> None:
        """The queue's arguments are read where the dataset is built (at the dequeue): nothing between
        may rebind them."""
        reads = set(cstutil.name_uses(self.call).loads) | set(cstutil.name_uses(dequeue_call).loads)
        for index in range(self.index + 1, dequeue_index):
            rebound = reads & cstutil.name_uses(self.body[index]).stores
            if rebound:
                raise _Refused("`%s` is reassigned between the queue and its dequeue" % sorted(rebound)[0])


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
        seed=batching.seed if batching.shuffle_buffer else stage.seed,
        # The map runs the per-record code of both stages: with the batching's threads, else the queue's.
        num_threads=batching.num_threads or stage.num_threads)


_NOT_FED = ("what it enqueues is not the record of a producer → reader chain in the same block (tensors from "
            "elsewhere, or a queue fed from Python)")


def reasons(queues: BlockQueues):
    """(call, why it stays) for every call of the block's hand-built queues, for those no pipeline took."""
    for queue in queues.accepted.values():
        for call in queue.calls:
            yield call, _NOT_FED
    for refused in list(queues.refused.values()) + queues.unplaced:
        for call in refused.calls:
            yield call, refused.reason
