"""Lists for `*_join` built by a loop of readers on one file queue.

    examples = []
    for _ in range(n):
        reader = tf.TFRecordReader()
        _, value = reader.read(queue)
        ...per-record statements...
        examples.append([image, label])
    batch = tf.train.batch_join(examples, ...)

Every reader of the loop dequeues whole files from the same queue, so together they read each
file of an epoch once, n files at a time, their records mixed by the batching queue's n
enqueue threads: `interleave(dataset_class, cycle_length=n)` reads the same files n at a time
(the same records per epoch, mixed round-robin instead of by thread timing), and the map runs
the per-record code n at a time, as the n enqueue ops did. A single reader dataset with
`map(num_parallel_calls=n)` would give the same multiset per epoch too, but reads one file at a
time; interleave keeps the legacy's "n files open" order property, so it is the one written.
"""
import dataclasses
from dataclasses import dataclass
from typing import Optional, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import dotted
from qmigrate.rules.base import Unsupported


@dataclass(frozen=True)
class ReaderLoop:
    """What a reader loop holds; statements are nodes of the loop body."""

    list_name: str  # the list the loop appends to
    count: cst.BaseExpression  # n of range(n)
    reader_stmt: Optional[cst.BaseStatement]  # `reader = tf.XReader()` in the loop, or None (inline ctor)
    read_value: cst.BaseExpression  # the `reader.read(queue)` call's statement value
    read_target: cst.BaseExpression
    record_stmts: Tuple[cst.BaseStatement, ...]  # the per-record statements between read and append
    element: cst.BaseExpression  # what each iteration appends
    helper_queue: Optional[str] = None  # the read is a reader helper's call, given this queue


class NotAReaderLoop(Exception):
    """The loop reads records for a join but in a way this module does not rewrite; the text says why.
    `list_name`: the list the loop appends to, when known (its joins are told the same reason)."""

    def __init__(self, message: str, list_name: Optional[str] = None, reader: Optional[str] = None):
        super().__init__(message)
        self.list_name = list_name
        self.reader = reader  # the reader variable the loop reads but does not make, if that is why


def group_described(count: str, list_name: str, reader: str) -> str:
    """How a diagnostic names a loop of one reader made outside it, read `count` times into a list."""
    return "the loop reads %s records in a row into `%s` with the one reader `%s`, made outside it" % (
        count, list_name, reader)


def reader_loop(loop: cst.For, is_reader_ctor, read_call, helper_read=lambda expr: None) -> Optional[ReaderLoop]:
    """The reader loop `loop` is, or None when it is no loop over `range(n)` ending in
    `name.append(...)` after a read. Raises NotAReaderLoop for such a loop that cannot be moved.

    `is_reader_ctor(expr)` tells a reader constructor call; `read_call(expr)` is
    recognise._read_call (reader, queue, up_to) or None; `helper_read(expr)` the queue a reader
    helper's call `read(queue)` is given (each call makes its own reader), or None.
    """
    if not _range_loop(loop):
        return None
    it = loop.iter
    body = list(loop.body.body)
    append = _append(body[-1]) if body else None
    if append is None:
        return None
    list_name, element = append
    reads = [index for index, stmt in enumerate(body[:-1])
             if cstutil.single_assign(stmt) and (read_call(cstutil.single_assign(stmt)[1])
                                                 or helper_read(cstutil.single_assign(stmt)[1]))]
    if len(reads) != 1:
        return None
    read_index = reads[0]
    target, value = cstutil.single_assign(body[read_index])
    helper_queue = None if read_call(value) else helper_read(value)
    reader = read_call(value)[0] if helper_queue is None else None
    reader_stmt = None
    if isinstance(reader, str):  # a reader variable: made by the statement just before, in the loop
        made = cstutil.single_assign(body[read_index - 1]) if read_index > 0 else None
        if not (made and isinstance(made[0], cst.Name) and made[0].value == reader and is_reader_ctor(made[1])):
            if reader not in cstutil.name_uses(loop.body).stores:
                # One reader read n times in each run: n records in a row per step, enqueued together.
                raise NotAReaderLoop(
                    "%s: a group per run of what batches that list (a group cut short at the end of the "
                    "files is lost), which qmigrate rewrites only with read() of a reader made by a TensorFlow "
                    "reader class in the same function or module code, of a file queue made there too "
                    "(group_reads.py)" % group_described(_code(it.args[0].value), list_name, reader),
                    list_name, reader)
            raise NotAReaderLoop("the loop's reader `%s` is not made in the loop just before its read, so the "
                                 "loop's reads may not be one reader each" % reader)
        reader_stmt = body[read_index - 1]
        before = body[:read_index - 1]
    else:
        before = body[:read_index]
    if before:
        raise NotAReaderLoop("the loop runs code before its read, which a dataset would not run per reader")
    _check_alike(loop, body, list_name, "readers")
    return ReaderLoop(list_name, it.args[0].value, reader_stmt, value, target, tuple(body[read_index + 1:-1]),
                      element, helper_queue)


@dataclass(frozen=True)
class RowLoop:
    """`for _ in range(n): x = f(queue.dequeue()); ...; rows.append(...)`: n dequeues of one
    producer's rows (file names, ids), each with the same per-record code, for a `*_join`."""

    list_name: str
    count: cst.BaseExpression
    dequeue: cst.Call  # the loop's one `queue.dequeue()`, in its first statement
    record_stmts: Tuple[cst.BaseStatement, ...]  # from the dequeue's statement to the append, excluded
    element: cst.BaseExpression


def row_loop(loop: cst.For, find_dequeue) -> Optional[RowLoop]:
    """The RowLoop `loop` is, or None. `find_dequeue(stmt)` is the row producer's `dequeue()` call
    inside a statement, or None. Each iteration dequeued its own row and ran the same code on it,
    as each of the join's n threads did: one row dataset mapped n at a time reads the same rows.
    Raises NotAReaderLoop for such a loop that cannot be moved."""
    if not _range_loop(loop):
        return None
    it = loop.iter
    body = list(loop.body.body)
    append = _append(body[-1]) if len(body) > 1 else None
    if append is None:
        return None
    dequeues = [(index, find_dequeue(stmt)) for index, stmt in enumerate(body[:-1])]
    dequeues = [(index, call) for index, call in dequeues if call is not None]
    if len(dequeues) != 1:
        return None
    index, call = dequeues[0]
    list_name, element = append
    if index != 0:
        raise NotAReaderLoop("the loop runs code before its dequeue, which a dataset would not run per row",
                             list_name)
    _check_alike(loop, body, list_name, "rows")
    return RowLoop(list_name, it.args[0].value, call, tuple(body[:-1]), element)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


@dataclass(frozen=True)
class RecordLoop:
    """`for _ in range(n): <per-record statements>; rows.append(...)` over a record made before the
    loop (a `queue.dequeue()`, a read), the list batched by `*_join`: each of the join's n threads
    ran its own copy of the statements, and each run of an enqueue op ran the record's op again,
    so the n copies took n different records (not n copies of one): one map of the statements,
    n at a time, over the record dataset gives the same records."""

    list_name: str
    count: cst.BaseExpression
    record_stmts: Tuple[cst.BaseStatement, ...]  # the loop's body without its append
    element: cst.BaseExpression
    refused: str = ""  # why the loop cannot become the map function, if it cannot
    # The loop's variable, when the copies read it (`resize(image, method=thread_id % 4)`): each
    # thread's copy differs, and the map function runs copy i % n for record i (synth).
    thread_var: Optional[str] = None


def record_loop(loop: cst.For, records) -> Optional[RecordLoop]:
    """The RecordLoop `loop` is, or None when it is no loop over `range(n)` ending in
    `name.append(...)` that reads one of `records` (the per-record names made before it).
    `refused` says why such a loop cannot be moved: its iterations differ (the loop variable,
    break/continue/return, the list used beyond its append), or one reads what the one before
    made (in the map function the statements run once per record, with nothing carried). The
    caller decides whether the list is a join's (only then is the loop one of threads)."""
    if not _range_loop(loop):
        return None
    body = list(loop.body.body)
    append = _append(body[-1]) if body else None
    if append is None or not set(records) & set(cstutil.name_uses(loop.body).loads):
        return None
    list_name, element = append
    found = RecordLoop(list_name, loop.iter.args[0].value, tuple(body[:-1]), element)
    variable = loop.target.value
    if variable in cstutil.name_uses(cst.IndentedBlock(body=body)).loads:
        found = dataclasses.replace(found, thread_var=variable)
    try:
        _check_alike(loop, body, list_name, "threads' records", variable_read=found.thread_var is not None)
    except NotAReaderLoop as refused:
        return dataclasses.replace(found, refused=str(refused))
    bound, stores = set(), cstutil.name_uses(loop.body).stores
    for stmt in body:
        uses = cstutil.name_uses(stmt)
        carried = (set(uses.loads) - bound) & stores - {loop.target.value}
        if carried:
            return dataclasses.replace(found, refused=(
                "`%s` is read in the loop before the loop binds it again: each iteration works on what the one "
                "before made, which one map function cannot" % sorted(carried)[0]))
        if isinstance(stmt, cst.SimpleStatementLine):  # an `if` or loop may not bind what it names
            bound |= uses.stores
    return found


def _range_loop(loop: cst.For) -> bool:
    """`for name in range(n):` (one positional argument), over a block, with no else."""
    it = loop.iter
    return (isinstance(loop.target, cst.Name) and isinstance(it, cst.Call) and dotted(it.func) in ("range", "xrange")
            and len(it.args) == 1 and not it.args[0].keyword and not it.args[0].star
            and isinstance(loop.body, cst.IndentedBlock) and loop.orelse is None and not loop.asynchronous)


def _check_alike(loop: cst.For, body, list_name: str, what: str, variable_read: bool = False) -> None:
    """Every iteration does the same (no use of the loop variable unless `variable_read`, which
    allows reading it; no break, continue or return) and touches the list only by its one append;
    else NotAReaderLoop."""
    uses = cstutil.name_uses(cst.IndentedBlock(body=body))
    if variable_read and loop.target.value in uses.stores | uses.mutated:
        raise NotAReaderLoop("the loop's body binds its variable `%s` again" % loop.target.value, list_name)
    if loop.target.value in uses.loads and not variable_read:
        raise NotAReaderLoop("the loop's body uses its variable `%s`: the %s are not all alike"
                             % (loop.target.value, what), list_name)
    if uses.control:
        raise NotAReaderLoop("the loop's body contains `%s`" % sorted(uses.control)[0], list_name)
    if uses.loads.count(list_name) != 1 or list_name in uses.stores or list_name in uses.mutated:
        raise NotAReaderLoop("the loop uses its list `%s` other than by one append" % list_name, list_name)


def _append(stmt: cst.BaseStatement):
    """(list name, appended expression) for `name.append(expr)`, else None."""
    small = cstutil.single_small(stmt)
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return None
    call = small.value
    if not (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
            and call.func.attr.value == "append" and len(call.args) == 1 and not call.args[0].keyword
            and not call.args[0].star):
        return None
    return call.func.value.value, call.args[0].value


def is_empty_list(value: Optional[cst.BaseExpression]) -> bool:
    """`[]` or `list()`."""
    return (isinstance(value, cst.List) and not value.elements) or (
        isinstance(value, cst.Call) and dotted(value.func) == "list" and not value.args)


def one_reader_join(found):
    """`batch_join([(a, b)], ...)` / `shuffle_batch_join([...], ...)` with a literal list of one
    tensor list: one enqueue thread batching one reader's tensors, as `batch((a, b), ...)` with
    one thread does. `found`: (join rule, call) or None. Returns (rule, call), the rule a subclass
    of the join's whose bind() also gives `tensors`, the list's one element (what a batcher's
    bind gives), so an if/else arm batching one reader this way is read like any batching arm;
    None for any other list."""
    if not found:
        return None
    rule, call = found
    try:
        listed = rule.bind(call).get("tensors_list")
    except Unsupported:  # * or ** arguments, unknown keywords
        return None
    if not (isinstance(listed, cst.List) and len(listed.elements) == 1
            and isinstance(listed.elements[0], cst.Element)):
        return None
    return _ONE_READER.setdefault(rule, _one_reader_rule(rule)), call


_ONE_READER = {}


def _one_reader_rule(join_rule):
    def bind(cls, call):
        bound = dict(join_rule.bind.__func__(cls, call))
        bound["tensors"] = bound["tensors_list"].elements[0].value
        return bound

    return type("OneReader" + join_rule.__name__, (join_rule,), {"bind": classmethod(bind)})
