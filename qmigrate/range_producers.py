"""`range_input_producer(limit, ...).dequeue()`: a stream of int32 indices (the PTB reader's step
counter), rewritten in place as a dataset of the same range; `dequeue_many(n)` takes n at a time
(facenet's epoch of shuffled indices, fetched to Python), `dequeue_up_to(n)` too, the last fewer. No batching follows it, so it is
not a pipeline of the model: one statement (or a producer and its one dequeue) becomes a few.
"""
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.recognise import NamePool
from qmigrate.rules.base import Unsupported, bool_or_test, is_none
from qmigrate.rules.producers import RangeInputProducer


@dataclass(frozen=True)
class RangeDequeue:
    """Leaf `dequeue_index` takes the next index; `producer_index` (or None) made the queue."""

    producer_index: Optional[int]
    dequeue_index: int
    call: cst.Call
    statements: Tuple[str, ...]  # the replacement of the dequeue leaf, as source


_DEQUEUES = ("dequeue", "dequeue_many", "dequeue_up_to")


@dataclass(frozen=True)
class Taken:
    """What one dequeue takes: `batch` (the source of n) for dequeue_many(n) / dequeue_up_to(n),
    None for dequeue(); `partial`: whether the last, smaller batch comes out (dequeue_up_to);
    `name`: the source of the dequeue's op name, when given."""
    batch: Optional[str] = None
    partial: bool = False
    name: Optional[str] = None


def _dequeue(value, source_of: Callable) -> Optional[Taken]:
    """What `<queue>.dequeue()`, `.dequeue_many(n)`, `.dequeue_up_to(n)` (each with an optional
    name) takes; None for any other expression. Raises Unsupported for arguments it cannot read."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _DEQUEUES):
        return None
    method = value.func.attr.value
    params = ("name",) if method == "dequeue" else ("n", "name")
    bound = {}
    for position, arg in enumerate(value.args):
        key = arg.keyword.value if arg.keyword is not None else (params[position] if position < len(params) else None)
        if arg.star or key not in params:
            raise Unsupported("its %s() takes arguments qmigrate cannot read" % method)
        bound[key] = source_of(arg.value)
    if method != "dequeue" and "n" not in bound:
        raise Unsupported("its %s() gives no number of indices" % method)
    return Taken(bound.get("n"), method == "dequeue_up_to", bound.get("name"))


def _dequeued_producer(value, imports) -> Optional[cst.Call]:
    """The range_input_producer call of `range_input_producer(...).dequeue()` (or dequeue_many,
    dequeue_up_to)."""
    if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _DEQUEUES and isinstance(value.func.value, cst.Call)
            and imports.resolve(value.func.value.func) in RangeInputProducer.names):
        return value.func.value
    return None


def _guards(leaves, index: int, call: cst.Call, imports, source_of: Callable) -> Tuple[str, ...]:
    """The control inputs guarding what the producer reads: `with tf.control_dependencies([check]):
    limit = tf.identity(limit)` before it gives ("check",).

    A one-shot iterator captures the limit by value, without its control inputs, so the guard must
    be put back on the iterator's get_next. Raises Unsupported when a guard's inputs are rebound
    before the dequeue (their value there would not be the one guarded).
    """
    wanted = set(cstutil.name_uses(call).loads)
    guards = []
    for earlier in range(index - 1, -1, -1):
        leaf = leaves[earlier]
        stored = cstutil.name_uses(leaf.original).stores & wanted
        if not stored:
            continue
        wanted -= stored
        for with_node in leaf.withs:
            for item in with_node.items:
                if (isinstance(item.item, cst.Call) and item.item.args
                        and imports.resolve(item.item.func) == "tensorflow.control_dependencies"):
                    inputs = item.item.args[0].value
                    rebound = set(cstutil.name_uses(inputs).loads)
                    if any(rebound & cstutil.name_uses(leaves[later].original).stores
                           for later in range(earlier + 1, index)):
                        raise Unsupported("the control dependencies guarding its limit are rebound before it")
                    guards.append(source_of(inputs))
    return tuple(dict.fromkeys(guards))


def find(leaves, imports, scope_loads: Callable, names: NamePool, source_of: Callable, write) -> Tuple[
        List[RangeDequeue], List[Tuple[cst.Call, str]]]:
    """The range producers of a block that can be rewritten, and (call, reason) for the others.

    `scope_loads()` counts the name loads of the enclosing scope (asked only for a queue name);
    `write(limit, epochs, shuffle, seed, target, dataset, guards)` returns the replacement statements.
    """
    found, failures = [], []
    producers = {}  # queue name -> (leaf index, call)
    for index, leaf in enumerate(leaves):
        assign = cstutil.single_assign(leaf.original)
        if assign is None:
            continue
        target, value = assign
        if isinstance(value, cst.Call) and imports.resolve(value.func) in RangeInputProducer.names:
            if isinstance(target, cst.Name):
                producers[target.value] = (index, value)
            continue
        call, producer_index = _dequeued_producer(value, imports), None
        if (call is None and isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute) and value.func.attr.value in _DEQUEUES
                and isinstance(value.func.value, cst.Name) and value.func.value.value in producers):
            queue = value.func.value.value
            producer_index, call = producers[queue]
            if scope_loads()[queue] != 1:
                failures.append((call, "the queue `%s` is used beyond its one dequeue" % queue))
                continue
            # The producer's arguments are read where the dequeue stood: nothing between may rebind them.
            reads = set(cstutil.name_uses(leaves[producer_index].original).loads)
            if any(reads & cstutil.name_uses(leaves[between].original).stores
                   for between in range(producer_index + 1, index)):
                failures.append((call, "what its arguments read is reassigned before the dequeue()"))
                continue
        if call is None:
            continue
        try:
            taken = _dequeue(value, source_of)
            args = RangeInputProducer.bind(call)
            if "limit" not in args:
                raise Unsupported("it has no limit argument")
            for unsupported in ("shared_name",):
                if not is_none(args.get(unsupported)):
                    raise Unsupported("it sets `%s`, which has no tf.data counterpart" % unsupported)
            epochs, seed = args.get("num_epochs"), args.get("seed")
            guards = _guards(leaves, index if producer_index is None else producer_index, call, imports,
                             source_of)
            statements = write(source_of(args["limit"]), None if is_none(epochs) else source_of(epochs),
                               bool_or_test(args.get("shuffle"), True, "shuffle", source_of),
                               None if is_none(seed) else source_of(seed), source_of(target),
                               names.fresh("dataset"), guards, names.fresh("iterator") if guards else None,
                               taken)
        except Unsupported as error:
            failures.append((call, str(error)))
            continue
        found.append(RangeDequeue(producer_index, index, call, tuple(statements)))
    return found, failures
