"""A hand-built queue filled with the rows of in-memory arrays becomes a dataset of those rows.

    data = 10 * np.random.randn(1000, 4)
    queue = tf.FIFOQueue(capacity=50, dtypes=[tf.float32, tf.int32], shapes=[[4], []])
    enqueue_op = queue.enqueue_many([data, target])
    x, y = queue.dequeue()
    runner = tf.train.QueueRunner(queue, [enqueue_op] * 4)
    ...
        threads = runner.create_threads(sess, coord=coord, start=True)

becomes

    dataset = tf.data.Dataset.from_tensor_slices((tf.convert_to_tensor(data, dtype=tf.float32),
                                                  tf.convert_to_tensor(target, dtype=tf.int32)))
    dataset = dataset.repeat()
    dataset = dataset.prefetch(1)
    x, y = dataset.make_one_shot_iterator().get_next()
    ...
        threads = []

Why it keeps the meaning: the enqueue op's tensors are the arrays, converted to the queue's
dtypes as `enqueue_many` converts them (`convert_to_tensor(value, dtype=...)`, the same call),
once, when the graph is built. Each run of the op puts in every row, in order, and one run's rows
go in before the next run's (a queue completes its enqueue attempts in turn, whatever the number
of threads); the runner runs it until the program stops. The queue sees the rows in order, over
and over: `from_tensor_slices(...).repeat()`. A RandomShuffleQueue mixes them keeping
`min_after_dequeue` (shuffle and repeat, as tf.train.shuffle_batch migrates), and
`dequeue_many(n)` takes n rows at a time (a batch; the rows never run out, so no partial batch).
`enqueue_many` checked, when the graph was built, that each array's rows have the queue's
`shapes=`; the dataset's rows have the arrays' static shapes, the same ones.

The runner goes with the queue. Started by `add_queue_runner` it needs nothing more; started by
hand (`runner.create_threads(...)`) its start goes too: a statement of its own is removed, and
`threads = runner.create_threads(...)` binds `threads` to no thread (`threads = []`), for
whatever joins it.

Contract: `rewrite` acts on `Q = tf.FIFOQueue(...)` or `tf.RandomShuffleQueue(...)` (no
`names=`, no `shared_name=`) in the body of the module or of a top-level function or method,
with, in that same block:
- one `E = Q.enqueue_many(T)`, `T` a list or tuple literal (or the one array of a queue of one
  dtype) of arrays made in memory, each as qmigrate/in_memory_rows.py's contract says, bound
  before that statement; `dtypes=` a literal list or tuple of as many (or one dtype);
- one `X = Q.dequeue()` or `X = Q.dequeue_many(n)` after it;
- one `QueueRunner(Q, [E] * n)` (or `[E, E]`) after it, registered with `add_queue_runner` (in
  that statement or the next ones of the block), or named and only started by hand: every other
  read of its name is `R.create_threads(...)`, a statement (or `name = ...`) of its own in the
  same scope, not in a function it defines.
Q, E and R are read nowhere else and bound once. Otherwise the queue stays: `reasons` says why
once the enqueue op is known to take in-memory arrays, the general reason stands before that.
"""
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from qmigrate import cstutil, in_memory_rows, synth, wording
from qmigrate.dead_datasets import functions_by_path
from qmigrate.handbuilt import _ADD_RUNNER, _RUNNER, _RUNNER_SIGNATURE, _SIGNATURES, Declined, bind_arguments
from qmigrate.names import ImportMap
from qmigrate.rules.batching import shuffle_buffer
from qmigrate.model import Batching

_FIFO, _SHUFFLE = "tensorflow.FIFOQueue", "tensorflow.RandomShuffleQueue"
_DATASET = "dataset"
TODO = ("read the arrays' rows with tf.data.Dataset.from_tensor_slices(arrays) (converted to the queue's dtypes), "
        "then .repeat() (and shuffle or batch as the queue and its dequeue did), and replace the dequeue with the "
        "iterator's get_next()")
Scope = Union[cst.Module, cst.FunctionDef]


@dataclass
class Outcome:
    """What `rewrite` did: the new module, the ids of the calls of the original module it
    migrated (queue, runner, registration), and the reasons of queues it recognised but left."""
    module: cst.Module
    fixed: Set[int] = field(default_factory=set)
    reasons: Dict[int, str] = field(default_factory=dict)
    todos: Dict[int, str] = field(default_factory=dict)
    queues: int = 0  # how many it replaced


@dataclass
class _Found:
    """The statements of one queue, in the original module (`block`: the scope's body)."""
    scope: Scope
    block: Sequence[cst.BaseStatement]
    dequeue: cst.SimpleStatementLine
    removed: List[cst.SimpleStatementLine]  # constructor, enqueue op, runner, registration
    starts: List[cst.SimpleStatementLine]  # `R.create_threads(...)` statements
    lines: List[str]  # the dataset's statements, the dequeue's target bound last
    calls: List[cst.Call]  # the queue API calls that go


def worth_looking(source: bytes) -> bool:
    return b"enqueue_many" in source


def any_of_arrays(module: cst.Module, imports: ImportMap, calls: List[cst.Call]) -> bool:
    """Whether one of the queues of `calls` (constructor calls of `module`) takes in-memory
    arrays as the contract says: `rewrite` replaces it or says why not."""
    wanted = {id(call) for call in calls}
    for scope, block, stmt in _candidates(module, wanted):
        try:
            if _recognise(module, scope, block, stmt, imports, "tf", None, spell=False) is not None:
                return True
        except Declined:
            return True
    return False


def _candidates(module: cst.Module, wanted: Set[int]):
    """(scope, its body, statement) for each `name = <call>` statement of the body of the module
    or of a top-level function or method whose call's id is in `wanted`."""
    for scope in [module] + list(functions_by_path(module).values()):
        block = scope.body if isinstance(scope, cst.Module) else scope.body.body
        for stmt in block:
            assign = cstutil.single_assign(stmt)
            if assign is not None and id(assign[1]) in wanted:
                yield scope, block, stmt


def rewrite(old: cst.Module, new: cst.Module, imports: ImportMap, calls: List[cst.Call], tf: str,
            target) -> Outcome:
    """`new` (the migration of `old`) with the queues of `calls` (constructor calls of `old` the
    migration left) that the contract allows replaced by datasets of their rows."""
    outcome = Outcome(new)
    for scope, block, stmt in _candidates(old, {id(call) for call in calls}):
        ctor = cstutil.single_assign(stmt)[1]
        try:
            found = _recognise(old, scope, block, stmt, imports, tf, target)
        except Declined as refused:
            outcome.reasons[id(ctor)] = str(refused)
            outcome.todos[id(ctor)] = refused.todo or TODO
            continue
        if found is None:
            continue
        edited = _apply(outcome.module, old, found)
        if edited is not None:
            outcome.module = edited
            outcome.fixed |= {id(call) for call in found.calls}
            outcome.queues += 1
    return outcome


def _recognise(module: cst.Module, scope: Scope, block, stmt, imports: ImportMap, tf: str,
               target, spell: bool = True) -> Optional[_Found]:
    """The statements of the queue of `stmt` and its dataset (`spell`: whether to write the
    dataset's lines; without, `lines` is empty); None when it is not this shape; Declined with
    the reason when it is but cannot be replaced."""
    target_node, ctor = cstutil.single_assign(stmt)
    kind = imports.resolve(ctor.func)
    if kind not in (_FIFO, _SHUFFLE) or not isinstance(target_node, cst.Name):
        return None
    queue = target_node.value
    try:
        args = bind_arguments(ctor, _SIGNATURES[kind], "the queue")
    except Declined:
        return None  # the general reason stands
    if "names" in args or "shared_name" in args or "dtypes" not in args:
        return None
    index = _index(block, stmt)
    enqueue = _method_statements(block, queue, ("enqueue_many",))
    if len(enqueue) != 1 or enqueue[0][0] < index or not enqueue[0][3]:
        return None
    enqueue_index, enqueue_stmt, enqueue_call, _ = enqueue[0]
    op = cstutil.single_assign(enqueue_stmt)[0]
    dtypes = args["dtypes"]
    many_dtypes = isinstance(dtypes, (cst.List, cst.Tuple))
    arrays = _arrays(enqueue_call, many_dtypes)
    if arrays is None or not isinstance(op, cst.Name):
        return None
    finder = in_memory_rows.ArrayFinder(module, imports)
    if not all(finder.in_memory(array, scope, list(block[:enqueue_index])) for array in arrays):
        return None
    # The enqueue op takes in-memory arrays: from here on the queue is ours, and a refusal says why.
    kinds = [e.value for e in dtypes.elements] if many_dtypes else [dtypes]
    if len(kinds) != len(arrays) or any(isinstance(e, cst.StarredElement) for e in getattr(dtypes, "elements", ())) \
            or not all((imports.resolve(kind) or "").startswith("tensorflow.") for kind in kinds):
        raise Declined("its `dtypes=` does not list one dtype per array it takes in, each a TensorFlow dtype "
                       "(`tf.float32`)")
    dequeues = _method_statements(block, queue, ("dequeue", "dequeue_many"))
    if len(dequeues) != 1 or dequeues[0][0] < enqueue_index:
        raise Declined("it is not dequeued once in its block after its enqueue op")
    _, dequeue_stmt, dequeue_call, whole = dequeues[0]
    if not whole:
        where = ("part of a larger statement" if isinstance(dequeue_stmt, cst.SimpleStatementLine)
                 else "in a block nested in its own (`with`, `if`, a loop)")
        raise Declined("its `%s.%s(...)` is %s" % (queue, dequeue_call.func.attr.value, where))
    runner = _runner(block, queue, op.value, imports, enqueue_index)
    _, runner_stmt, runner_call, runner_name, registration = runner
    removed = [stmt, enqueue_stmt, runner_stmt] + ([registration[1]] if registration else [])
    calls = [ctor, runner_call] + ([cstutil.statement_value(registration[1])] if registration else [])
    if isinstance(cstutil.statement_value(runner_stmt), cst.Call) and runner_name is None:
        calls.append(cstutil.statement_value(runner_stmt))  # add_queue_runner(QueueRunner(...))
    loads = Counter(cstutil.scoped_uses(scope).loads)
    stores = _stores(scope)
    starts: List[cst.SimpleStatementLine] = []
    if runner_name is not None and registration is None:
        starts = _hand_starts(scope, runner_name)
        if not starts or loads[runner_name] != len(starts):
            raise Declined("its QueueRunner `%s` is used for more than starting its threads "
                           "(`%s.create_threads(...)`, a statement of its own in this scope)"
                           % (runner_name, runner_name))
    elif runner_name is not None and loads[runner_name] != 1:
        raise Declined("its QueueRunner `%s` is used for more than add_queue_runner" % runner_name)
    if loads[queue] != 3:
        raise Declined("`%s` is used for more than its enqueue op, its dequeue and its QueueRunner%s"
                       % (queue, _other_use(scope, queue, [enqueue_stmt, dequeue_stmt, runner_stmt], module)))
    if loads[op.value] != _runner_ops(runner_call, op.value):
        raise Declined("its enqueue op `%s` is used for more than the QueueRunner (run by hand, or kept)" % op.value)
    for name in [queue, op.value] + ([runner_name] if runner_name else []):
        if stores.count(name) != 1:
            raise Declined("`%s` is bound more than once in its scope" % name)
    if not spell:
        return _Found(scope, block, dequeue_stmt, removed, starts, [], calls)
    dataset = cstutil.fresh_name(scope, _DATASET)
    lines = _dataset_lines(dataset, arrays, kinds, kind, args, dequeue_call, dequeue_stmt, tf, target,
                           module.code_for_node)
    return _Found(scope, block, dequeue_stmt, removed, starts, lines, calls)


def _other_use(scope: Scope, name: str, known, module: cst.Module) -> str:
    """` (first: `<statement>`)`, the first statement of the scope other than `known` that reads
    `name` (nothing when it is not a simple statement)."""
    for stmt in in_memory_rows.scope_statements(scope):
        if isinstance(stmt, cst.SimpleStatementLine) and not any(stmt is k for k in known) \
                and name in cstutil.name_uses(stmt).loads:
            return " (`%s`)" % _text(stmt).strip()
    return ""


def _index(block, stmt) -> int:
    return next(i for i, other in enumerate(block) if other is stmt)


def _method_statements(block, queue: str, methods: Tuple[str, ...]):
    """(index, statement, call, whole) for each call of one of the methods on `queue` in the
    block; `whole`: the statement is `x = queue.<method>(...)` and nothing else."""
    found = []
    for index, stmt in enumerate(block):
        for call in cstutil.calls_of(stmt):
            if (isinstance(call.func, cst.Attribute) and call.func.attr.value in methods
                    and isinstance(call.func.value, cst.Name) and call.func.value.value == queue):
                assign = cstutil.single_assign(stmt)
                found.append((index, stmt, call, assign is not None and assign[1] is call))
    return found


def _arrays(call: cst.Call, many: bool) -> Optional[List[cst.BaseExpression]]:
    """What `enqueue_many` takes, one expression per component (None: not a literal of them)."""
    if len(call.args) != 1 or call.args[0].star or (
            call.args[0].keyword is not None and call.args[0].keyword.value != "vals"):
        return None
    vals = call.args[0].value
    if isinstance(vals, (cst.List, cst.Tuple)):
        if not vals.elements or any(not isinstance(e, cst.Element) for e in vals.elements):
            return None
        return [e.value for e in vals.elements]
    return None if many else [vals]


def _runner(block, queue: str, op: str, imports: ImportMap, after: int):
    """(index, statement, QueueRunner call, its name or None, (index, statement) of its
    registration or None) for the one runner of `queue` in the block."""
    found = []
    for index, stmt in enumerate(block):
        for call in cstutil.calls_of(stmt):
            if imports.resolve(call.func) == _RUNNER:
                args = bind_arguments(call, _RUNNER_SIGNATURE, "its QueueRunner")
                if isinstance(args.get("queue"), cst.Name) and args["queue"].value == queue:
                    found.append((index, stmt, call, args))
    if len(found) != 1:
        raise Declined("it has no QueueRunner, or more than one, in its block")
    index, stmt, call, args = found[0]
    if index < after or set(args) != {"queue", "enqueue_ops"}:
        raise Declined("its QueueRunner sets more than the queue and its enqueue ops, or comes before them")
    if _runner_ops(call, op) == 0:
        raise Declined("its QueueRunner's enqueue ops are not a list of its one enqueue op (`[op] * n`)")
    value = cstutil.statement_value(stmt)
    if isinstance(value, cst.Call) and imports.resolve(value.func) == _ADD_RUNNER and len(value.args) == 1 \
            and value.args[0].value is call and isinstance(cstutil.single_small(stmt), cst.Expr):
        return index, stmt, call, None, None  # add_queue_runner(QueueRunner(...))
    assign = cstutil.single_assign(stmt)
    if assign is None or assign[1] is not call or not isinstance(assign[0], cst.Name):
        raise Declined("its QueueRunner is made in a larger statement")
    name = assign[0].value
    for later in range(index + 1, len(block)):
        value = cstutil.statement_value(block[later])
        if (isinstance(value, cst.Call) and imports.resolve(value.func) == _ADD_RUNNER and len(value.args) == 1
                and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name
                and value.args[0].keyword is None and isinstance(cstutil.single_small(block[later]), cst.Expr)):
            return index, stmt, call, name, (later, block[later])
    return index, stmt, call, name, None


def _runner_ops(call: cst.Call, op: str) -> int:
    """How many times the runner's enqueue ops name `op` (`[op] * n`: once); 0 when they are
    something else."""
    ops = bind_arguments(call, _RUNNER_SIGNATURE, "its QueueRunner").get("enqueue_ops")
    if isinstance(ops, cst.BinaryOperation) and isinstance(ops.operator, cst.Multiply):
        ops = next((side for side in (ops.left, ops.right) if isinstance(side, cst.List)), None)
        if ops is None or len(ops.elements) != 1:
            return 0
    if not (isinstance(ops, (cst.List, cst.Tuple)) and ops.elements and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and e.value.value == op
            for e in ops.elements)):
        return 0
    return len(ops.elements)


def _hand_starts(scope: Scope, runner: str) -> List[cst.SimpleStatementLine]:
    """The statements of the scope (nested blocks too, not functions it defines) that are
    `runner.create_threads(...)` or `name = runner.create_threads(...)`."""
    found = []
    for stmt in in_memory_rows.scope_statements(scope):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        small = cstutil.single_small(stmt)
        value = small.value if isinstance(small, cst.Expr) else None
        assign = cstutil.single_assign(stmt)
        if value is None and assign is not None and isinstance(assign[0], cst.Name):
            value = assign[1]
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "create_threads" and isinstance(value.func.value, cst.Name)
                and value.func.value.value == runner):
            found.append(stmt)
    return found


def _stores(scope: Scope) -> List[str]:
    names: List[str] = []
    for stmt in in_memory_rows.scope_statements(scope):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.append(stmt.name.value)
        elif isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            names += sorted(cstutil.name_uses(stmt).stores)
        else:
            names += sorted(in_memory_rows.header_stores(stmt))
    if isinstance(scope, cst.FunctionDef):
        names += cstutil.param_names(scope)
    return names


def _dataset_lines(dataset: str, arrays, kinds, kind: str, args, dequeue_call: cst.Call, dequeue_stmt, tf: str,
                   target, code) -> List[str]:
    converted = ["%s.convert_to_tensor(%s, dtype=%s)" % (tf, code(array), code(dtype))
                 for array, dtype in zip(arrays, kinds)]
    rows = converted[0] if len(converted) == 1 else "(%s)" % ", ".join(converted)
    lines = ["%s = %s.data.Dataset.from_tensor_slices(%s)" % (dataset, tf, rows)]
    many = dequeue_call.func.attr.value == "dequeue_many"
    if many and (len(dequeue_call.args) != 1 or dequeue_call.args[0].star or dequeue_call.args[0].keyword):
        raise Declined("its dequeue_many takes more than the number of rows")
    if not many and dequeue_call.args:
        raise Declined("its dequeue() is given a name or other arguments")
    size = code(dequeue_call.args[0].value) if many else None
    if kind == _SHUFFLE:
        if "min_after_dequeue" not in args or "capacity" not in args:
            raise Declined("its RandomShuffleQueue does not give capacity and min_after_dequeue")
        buffer = shuffle_buffer(dict(args, batch_size=size) if many else args, code)
        seed = code(args["seed"]) if "seed" in args else None
        lines += synth._shuffle_and_repeat(dataset, buffer, None, seed, tf, target)
    else:
        lines.append("%s = %s.repeat()" % (dataset, dataset))
    if many:
        lines.append("%s = %s.%s" % (dataset, dataset, synth._batch(dataset, Batching(size), tf, target)))
    lines.append("%s = %s.prefetch(1)" % (dataset, dataset))
    bound_node = cstutil.single_assign(dequeue_stmt)[0]
    element = "%s.get_next()" % synth._one_shot(dataset, tf, target)
    if len(arrays) > 1 and not isinstance(bound_node, (cst.Tuple, cst.List)):
        element = "list(%s)" % element  # a queue's dequeue gives a list of its components, not a tuple
    lines.append("%s = %s" % (code(bound_node), element))
    return lines


def _apply(new: cst.Module, old: cst.Module, found: _Found) -> Optional[cst.Module]:
    """`new` with the queue of `found` (statements of `old`) replaced; None when its statements
    cannot each be found, unchanged, in `new`'s scope of the same path (the n-th line of its text
    there, as in `old`)."""
    if isinstance(found.scope, cst.Module):
        scope_new: Scope = new
    else:
        path = next((p for p, f in functions_by_path(old).items() if f is found.scope), None)
        scope_new = functions_by_path(new).get(path) if path is not None else None
        if scope_new is None:
            return None
    old_texts, new_texts = _by_text(found.scope), _by_text(scope_new)
    mapping: Dict[int, cst.SimpleStatementLine] = {}
    for stmt in [found.dequeue] + found.removed + found.starts:
        text = _text(stmt)
        before, after = old_texts.get(text, []), new_texts.get(text, [])
        if len(before) != len(after):
            return None  # the migration changed a line like it: which is which cannot be told
        # the n-th line of this text in the scope, in both
        mapping[id(stmt)] = after[next(i for i, other in enumerate(before) if other is stmt)]
    edits: Dict[int, List[cst.BaseStatement]] = {id(mapping[id(stmt)]): [] for stmt in found.removed}
    first = cst.parse_statement(found.lines[0] + "\n")
    dataset_lines = [first.with_changes(leading_lines=found.dequeue.leading_lines)]
    dataset_lines += [cst.parse_statement(line + "\n") for line in found.lines[1:]]
    edits[id(mapping[id(found.dequeue)])] = dataset_lines
    for stmt in found.starts:
        assign = cstutil.single_assign(stmt)
        if assign is None:
            edits[id(mapping[id(stmt)])] = []
        else:
            emptied = cst.parse_statement("%s = []\n" % assign[0].value)
            edits[id(mapping[id(stmt)])] = [emptied.with_changes(leading_lines=stmt.leading_lines)]
    return new.visit(_Edit(edits))


def _by_text(scope: Scope) -> Dict[str, List[cst.SimpleStatementLine]]:
    """The scope's simple statements (nested blocks too, not functions it defines) by their text,
    in order."""
    found: Dict[str, List[cst.SimpleStatementLine]] = {}
    for stmt in in_memory_rows.scope_statements(scope):
        if isinstance(stmt, cst.SimpleStatementLine):
            found.setdefault(_text(stmt), []).append(stmt)
    return found


def _text(stmt: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(stmt.with_changes(leading_lines=[]))


def _joined(above: Sequence[cst.EmptyLine], below: Sequence[cst.EmptyLine]) -> List[cst.EmptyLine]:
    """The lines of `above` then `below`, less a blank line of `below` that would follow a blank one."""
    if above and below and above[-1].comment is None and below[0].comment is None:
        below = below[1:]
    return list(above) + list(below)


class _Edit(cst.CSTTransformer):
    """Statements (by the identity of the module's nodes) replaced by lists of statements; the
    blank lines and comments above a statement that goes stay where they were, above the next
    statement of its block (less comment blocks about the queue); a block left empty holds `pass`."""

    def __init__(self, edits: Dict[int, List[cst.BaseStatement]]):
        self.edits = edits

    def _body(self, original, updated) -> List[cst.BaseStatement]:
        out: List[cst.BaseStatement] = []
        carried: List[cst.EmptyLine] = []
        for old, new in zip(original.body, updated.body):
            replacement = self.edits.get(id(old), [new])
            if not replacement:
                carried = _joined(carried, wording.without_queue_comments(old.leading_lines))
                continue
            if carried:
                first = replacement[0]
                replacement = [first.with_changes(leading_lines=_joined(carried, first.leading_lines))] + replacement[1:]
                carried = []
            out.extend(replacement)
        return out

    def leave_Module(self, original_node, updated_node):
        return updated_node.with_changes(body=self._body(original_node, updated_node))

    def leave_IndentedBlock(self, original_node, updated_node):
        body = self._body(original_node, updated_node)
        return updated_node.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])
