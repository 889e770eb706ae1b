"""One reader read n times in a loop, the list batched with `enqueue_many=True`: records in groups.

    reader = tf.TFRecordReader()                  # one reader, made before the loop
    group = []
    for _ in range(n):
        _, value = reader.read(queue)
        ...per-record statements...
        group.append(example)
    batch = tf.train.shuffle_batch([group], ..., enqueue_many=True)   # or [tf.stack(group)]

Each run of the batching queue's enqueue op ran the n reads of the one reader: n records in a row
(the reader reads on across file and epoch ends), packed into one tensor of n examples, which
enqueue_many=True enqueues as n examples. A run whose reads hit the end of the producer's epochs
fails as a whole: the last group, cut short, is lost (R*E mod n records, with R records a epoch and
E epochs); no group is cut short anywhere else. The dataset reads the records, runs the per-record
code, repeats the epochs, then groups the records n at a time dropping a short last group and
unbatches them again (`RecordReader.read_groups`): the same records reach the batching, and the
batcher's shuffle and batch follow as for one record a run.

With several enqueue threads (num_threads > 1) the runs' reads interleave, and at the end each run
still reading loses its part: up to n more records per extra thread may be lost, by timing. The
dataset loses the R*E mod n of a single thread, one of the legacy's outcomes.

Contract (`group_loop`): the loop is `for name in range(n):` whose body is the read of a reader
variable the loop does not bind, `k, v = reader.read(queue)` or `v = reader.read(queue)[1]`
(as `recognise._read_call` gives it), first, then per-record statements, then `list.append(x)`
last, every iteration alike (joins._check_alike). `packed(tensors, list_name, resolve)` tells a
batcher's `tensors` that are `[list]` or `[tf.stack(list)]`: one tensor of the n examples.
"""
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import libcst as cst

from qmigrate import cstutil, joins


@dataclass(frozen=True)
class GroupLoop:
    """A loop of n reads of one reader made outside it; statements are nodes of the loop body."""

    list_name: str
    count: cst.BaseExpression  # n of range(n)
    reader: str  # the reader variable
    read_value: cst.BaseExpression  # `reader.read(queue)`
    read_target: cst.BaseExpression
    record_stmts: Tuple[cst.BaseStatement, ...]  # between the read and the append
    element: cst.BaseExpression  # what each iteration appends


def group_loop(loop: cst.For, read_call) -> Optional[GroupLoop]:
    """The GroupLoop `loop` is, or None when it is not a range loop whose first statement reads
    a reader variable not bound in the loop and whose last appends to a list. Raises
    joins.NotAReaderLoop (with the list's name) for such a loop whose iterations differ.
    `read_call(expr)` is recognise._read_call: (reader, queue, up_to) or None. The refusal
    names the reader (NotAReaderLoop.reader), so the chain around it is told."""
    if not joins._range_loop(loop):
        return None
    body = list(loop.body.body)
    append = joins._append(body[-1]) if len(body) > 1 else None
    assign = cstutil.single_assign(body[0]) if body else None
    read = read_call(assign[1]) if assign else None
    if append is None or read is None or read[2] is not None or not isinstance(read[0], str):
        return None
    if read[0] in cstutil.name_uses(loop.body).stores:
        return None
    list_name, element = append
    count = cst.Module([]).code_for_node(loop.iter.args[0].value)
    try:
        joins._check_alike(loop, body, list_name, "reads")
    except joins.NotAReaderLoop as refused:
        raise joins.NotAReaderLoop("%s, but %s" % (joins.group_described(count, list_name, read[0]), refused),
                                   list_name, read[0])
    return GroupLoop(list_name, loop.iter.args[0].value, read[0], assign[1], assign[0], tuple(body[1:-1]), element)


def packed(tensors: Optional[cst.BaseExpression], list_name: str, resolve: Callable[[cst.BaseExpression], str]) -> bool:
    """Whether a batcher's `tensors` is `[list_name]` or `[tf.stack(list_name)]` (axis 0): one
    tensor packing the list's n examples, which enqueue_many=True enqueues one by one."""
    if not (isinstance(tensors, (cst.List, cst.Tuple)) and len(tensors.elements) == 1
            and isinstance(tensors.elements[0], cst.Element)):
        return False
    value = tensors.elements[0].value
    if isinstance(value, cst.Call) and (resolve(value.func) or "") == "tensorflow.stack":
        args = value.args
        if not args or args[0].keyword is not None or args[0].star:
            return False
        rest = args[1:]
        if any(arg.star or (arg.keyword is not None and arg.keyword.value not in ("axis", "name")) for arg in rest):
            return False
        axis = [arg.value for position, arg in enumerate(rest)
                if (arg.keyword is not None and arg.keyword.value == "axis") or (arg.keyword is None and position == 0)]
        if axis and not (isinstance(axis[0], cst.Integer) and axis[0].value == "0"):
            return False
        value = args[0].value
    return isinstance(value, cst.Name) and not value.lpar and value.value == list_name


def element_source(element: cst.BaseExpression, value: str, tf: str, code: Callable[[cst.CSTNode], str]) -> str:
    """What the map function returns for the appended `element`: the read's value as it is, else
    `tf.convert_to_tensor(element)`, the one tensor the batcher's conversion of the list packed
    from each example (a list or tuple of tensors becomes one tensor, as it did there)."""
    if isinstance(element, cst.Name) and element.value == value:
        return value
    return "%s.convert_to_tensor(%s)" % (tf, code(element))


def refusal(batcher: Optional[str], enqueue_many: bool, is_packed: bool, reader: str, list_name: str,
            count: str) -> Optional[str]:
    """Why the batching of a group loop's list is not rewritten, or None."""
    what = joins.group_described(count, list_name, reader)
    if batcher is None:
        return "%s, and no tf.train batcher (batch, shuffle_batch, maybe_batch...) batches that list" % what
    if batcher == "join":
        return ("%s, batched by a *_join, whose list is one per reader: which qmigrate does not rewrite (read the "
                "records once, without the loop, and batch them)" % what)
    if not is_packed:
        return ("%s, batched as `tensors` other than `[%s]` or `[tf.stack(%s)]`, which qmigrate does not rewrite"
                % (what, list_name, list_name))
    if not enqueue_many:
        return ("%s, and batches that list without enqueue_many=True: each example is the whole group, which "
                "qmigrate does not rewrite" % what)
    return None

