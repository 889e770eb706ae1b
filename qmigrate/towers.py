"""Multi-device "tower" loops that consume one input pipeline.

The classic layout builds the batch once, wraps it in slim's `prefetch_queue`, and dequeues in
`for i in range(num_gpus): with tf.device('/gpu:%d' % i): ...`. Migrated, each tower calls the
input function itself for its own shard (`num_shards=num_gpus, shard_index=i`), under a CPU device
scope, where the dequeue was: per-device iterators, every example on exactly one tower per epoch.
"""
import bisect
from collections import Counter
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import libcst as cst

from qmigrate import blocks, cstutil
from qmigrate.names import ImportMap, dotted
from qmigrate.rules.base import Unsupported
from qmigrate.rules.prefetch import PrefetchQueue

PREFETCH_QUEUE = "tensorflow.contrib.slim.prefetch_queue.prefetch_queue"
_RANGES = {"range", "xrange", "six.moves.xrange", "six.moves.range", "builtins.range"}
SHARD_PARAMS = ("num_shards", "shard_index")


@dataclass(frozen=True)
class TowerConsumer:
    """An input function's batch and the tower loop that consumes it.

    kind "prefetch": `x = source(...)`, `q = prefetch_queue(x)`, each tower `q.dequeue()`;
    kind "shared": `x = source(...)` before the loop and every tower uses x (all train on one batch);
    kind "per_tower": each tower calls `source(...)` itself (each reads the whole data set).
    """

    function: str  # the enclosing function ("" at module level)
    source_stmt: cst.BaseStatement
    source_call: cst.Call
    callee: str  # dotted name as written, e.g. "cifar10.distorted_inputs"
    prefetch_stmt: Optional[cst.BaseStatement]
    prefetch_call: Optional[cst.Call]
    loop: cst.For
    loop_var: str  # the tower's index ("" for `for device in devices:`, which cannot be sharded)
    num_towers: str  # source of the number of towers (the range() argument, `len(devices)`)
    dequeue_stmt: Optional[cst.BaseStatement]  # "prefetch": the dequeue line in the loop
    kind: str = "prefetch"
    use_stmt: Optional[cst.BaseStatement] = None  # "shared": the loop's first line that uses x


def find_consumers(module: cst.Module, imports: ImportMap) -> List[TowerConsumer]:
    """Every tower loop's input in the module, in a deterministic order (statements, top-down)."""
    found: List[TowerConsumer] = []
    for function, body in _roots(module):
        leaves = blocks.flatten(body, body)
        if not any(isinstance(leaf.original, cst.For) and places_devices(leaf.original, imports) for leaf in leaves):
            continue  # every consumer feeds a loop of this block that places devices, as every tower call is in one
        uses = _LeafLoads(leaves, lambda: Counter(cstutil.name_uses(cst.IndentedBlock(body=body)).loads))
        for index, leaf in enumerate(leaves):
            consumer = _consumer_at(leaves, index, imports, function, module, uses)
            if consumer is not None:
                found.append(consumer)
            found += _per_tower_calls(leaf.original, imports, function, module)
    return found


class _LeafLoads:
    """Which names each leaf of a block reads, counted once per block (on first need), with the
    sorted positions of the leaves (and of the `for` leaves) reading each name: "the first later
    leaf that reads x" is a binary search, not a walk over the block."""

    def __init__(self, leaves, block_loads):
        self._leaves = leaves
        self._block_loads = block_loads
        self._readers = None
        self._total = None

    @property
    def total(self) -> Counter:
        """Name -> reads in the whole block (with-headers included)."""
        if self._total is None:
            self._total = self._block_loads()
        return self._total

    def first_reader(self, names, after: int, loops_only: bool = False) -> Optional[int]:
        """The first leaf after position `after` (a `for` loop, with `loops_only`) reading one of `names`."""
        if self._readers is None:
            self._readers = ({}, {})
            for position, leaf in enumerate(self._leaves):
                is_loop = isinstance(leaf.original, cst.For)
                for name in set(cstutil.name_uses(leaf.original).loads):
                    self._readers[0].setdefault(name, []).append(position)
                    if is_loop:
                        self._readers[1].setdefault(name, []).append(position)
        readers = self._readers[1 if loops_only else 0]
        found = [positions[at] for positions in (readers.get(name, ()) for name in names)
                 for at in (bisect.bisect_right(positions, after),) if at < len(positions)]
        return min(found) if found else None


def _per_tower_calls(loop, imports: ImportMap, function: str, module: cst.Module) -> List[TowerConsumer]:
    """Input calls made inside a tower loop: every tower builds its own pipeline."""
    if not isinstance(loop, cst.For) or not isinstance(loop.body, cst.IndentedBlock):
        return []
    loop_var, towers = tower_range(loop, imports)
    if loop_var is None:
        loop_var, towers = unindexed_devices(loop, imports)
    if loop_var is None or not places_devices(loop, imports):
        return []
    found = []
    for leaf in blocks.flatten(loop.body.body, loop.body.body):
        assign = cstutil.single_assign(leaf.original)
        if assign and isinstance(assign[1], cst.Call) and target_names(assign[0]) and dotted(assign[1].func) \
                and not (imports.resolve(assign[1].func) or "").startswith("tensorflow"):
            found.append(TowerConsumer(function, leaf.original, assign[1], dotted(assign[1].func), None, None,
                                       loop, loop_var, module.code_for_node(towers), None, kind="per_tower"))
    return found


def _roots(module: cst.Module):
    yield "", list(module.body)
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and isinstance(stmt.body, cst.IndentedBlock):
            yield stmt.name.value, list(stmt.body.body)


def _consumer_at(leaves, index, imports: ImportMap, function: str, module: cst.Module,
                 uses: _LeafLoads) -> Optional[TowerConsumer]:
    assign = cstutil.single_assign(leaves[index].original)
    if assign is None or not isinstance(assign[1], cst.Call):
        return None
    target, call = assign
    callee = dotted(call.func)
    if callee is None or (imports.resolve(call.func) or "").startswith("tensorflow"):
        return None
    names = target_names(target)
    if not names:
        return None
    prefetch_stmt = prefetch_call = None
    consumed = set(names)
    # The first statement reading the input either wraps it in a prefetch queue or consumes it.
    first = uses.first_reader(names, index)
    if first is not None:
        later_assign = cstutil.single_assign(leaves[first].original)
        if (later_assign and isinstance(later_assign[1], cst.Call)
                and imports.resolve(later_assign[1].func) == PREFETCH_QUEUE
                and isinstance(later_assign[0], cst.Name)):
            tensors = later_assign[1].args[0].value if later_assign[1].args else None
            if isinstance(tensors, (cst.List, cst.Tuple)) and target_names(tensors) == names:
                prefetch_stmt, prefetch_call = leaves[first].original, later_assign[1]
                consumed = {later_assign[0].value}
    at = uses.first_reader(consumed, index, loops_only=True)
    if at is None:
        return None
    loop = leaves[at].original
    loads = uses.total
    loop_var, towers = tower_range(loop, imports)
    if loop_var is None:
        loop_var, towers = unindexed_devices(loop, imports)
    if loop_var is None or not places_devices(loop, imports):
        return None
    # Moving the input into the towers is only sound if nothing else reads what it gave.
    loop_loads = Counter(cstutil.name_uses(loop).loads)
    if any(loads[name] != loop_loads[name] for name in consumed if prefetch_stmt is None) or (
            prefetch_stmt is not None and any(loads[name] != 1 for name in names)):
        return None
    if prefetch_stmt is not None:
        dequeue = _dequeue_in(loop, next(iter(consumed)))
        if dequeue is None or loads[next(iter(consumed))] != 1:
            return None
        return TowerConsumer(function, leaves[index].original, call, callee, prefetch_stmt, prefetch_call,
                             loop, loop_var, module.code_for_node(towers), dequeue)
    use = next(leaf.original for leaf in blocks.flatten(loop.body.body, loop.body.body)
               if set(cstutil.name_uses(leaf.original).loads) & consumed)
    return TowerConsumer(function, leaves[index].original, call, callee, None, None, loop, loop_var,
                         module.code_for_node(towers), None, kind="shared", use_stmt=use)


def target_names(target) -> Tuple[str, ...]:
    if isinstance(target, cst.Name):
        return (target.value,)
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in target.elements):
        return tuple(e.value.value for e in target.elements)
    return ()


def tower_range(loop: cst.For, imports: ImportMap):
    """(the tower's index variable, the number of towers) for `for i in range(n):` / `xrange(n)`,
    and for `for i, device in enumerate(devices):` (n is then `len(devices)`)."""
    it = loop.iter
    if not (isinstance(it, cst.Call) and len(it.args) == 1 and it.args[0].keyword is None and not it.args[0].star):
        return None, None
    if isinstance(loop.target, cst.Name) and (dotted(it.func) in _RANGES or imports.resolve(it.func) in _RANGES):
        return loop.target.value, it.args[0].value
    target = loop.target
    if (dotted(it.func) == "enumerate" and imports.resolve(it.func) in (None, "enumerate", "builtins.enumerate")
            and isinstance(target, cst.Tuple) and len(target.elements) == 2
            and isinstance(target.elements[0].value, cst.Name)):
        return target.elements[0].value.value, cst.Call(cst.Name("len"), [cst.Arg(it.args[0].value)])
    return None, None


def unindexed_devices(loop: cst.For, imports: ImportMap):
    """("", the number of towers) for `for device in devices:` whose body runs under
    `tf.device(device)`: a tower loop with no index to shard by (None, None otherwise)."""
    if not isinstance(loop.target, cst.Name) or not isinstance(loop.body, cst.IndentedBlock):
        return None, None
    for call in _device_calls(loop, imports):
        if call.args and loop.target.value in cstutil.name_uses(call.args[0].value).loads:
            return "", cst.Call(cst.Name("len"), [cst.Arg(loop.iter)])
    return None, None


def _dequeue_in(loop: cst.For, queue: str) -> Optional[cst.BaseStatement]:
    """The `a, b = queue.dequeue()` line inside the loop (through `with` blocks), if it is the only use."""
    if not isinstance(loop.body, cst.IndentedBlock):
        return None
    for leaf in blocks.flatten(loop.body.body, loop.body.body):
        value = cstutil.statement_value(leaf.original)
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "dequeue" and dotted(value.func.value) == queue
                and cstutil.single_assign(leaf.original)):
            return leaf.original
    return None


def _device_calls(loop: cst.For, imports: ImportMap):
    """The `tf.device(...)` calls inside the loop."""
    return (call for call in cstutil.calls_of(loop.body) if imports.resolve(call.func) == "tensorflow.device")


def places_devices(loop: cst.For, imports: ImportMap) -> bool:
    """A tower loop puts each iteration on a device: `with tf.device(...)` somewhere inside."""
    return any(_device_calls(loop, imports))


@dataclass
class TowerEdits:
    """What the migration of a set of files asks of one module for its tower loops."""

    shard_functions: set = field(default_factory=set)  # pipeline functions that take a shard
    passthrough: dict = field(default_factory=dict)  # function -> callee to pass the shard on to
    consumers: list = field(default_factory=list)  # TowerConsumer found in this module
    strategy: str = "shard"

    def __bool__(self) -> bool:
        return bool(self.shard_functions or self.passthrough or self.consumers)


STRATEGIES = ("shard", "shared-iterator")
SHARED_PARAM = "shared_iterators"
# The shared iterator prefetches what the prefetch queue held: the towers take several batches a
# step from it, and one batch of prefetch left each step waiting for the next (measured:
# bench/epoch_stall_bench.py, 1.13-1.24x the queue's time with prefetch(1)).
PREFETCH_PARAM = "prefetch_batches"
PREFETCH_QUEUE_CAPACITY = "8"  # slim's prefetch_queue(capacity=8) default


def tower_params(strategy: str) -> Tuple[Tuple[str, str], ...]:
    """The keyword parameters (name, default) an input function gains for a strategy."""
    if strategy == "shared-iterator":
        return ((SHARED_PARAM, "None"), (PREFETCH_PARAM, "1"))
    return ((SHARD_PARAMS[0], "1"), (SHARD_PARAMS[1], "0"))


def with_tower_params(function: cst.FunctionDef, strategy: str) -> cst.FunctionDef:
    """`def f(a, b)` → `def f(a, b, num_shards=1, shard_index=0)` (defaults keep old callers working)."""
    present = {p.name.value for p in function.params.params} | {p.name.value for p in function.params.kwonly_params}
    params = list(function.params.params)
    for name, default in tower_params(strategy):
        if name not in present:
            params.append(cst.Param(cst.Name(name), default=cst.parse_expression(default),
                                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    if params and params[-1].comma is not cst.MaybeSentinel.DEFAULT:
        params[-1] = params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return function.with_changes(params=function.params.with_changes(params=params))


def with_keywords(call: cst.Call, keywords) -> cst.Call:
    """The call with `name=value` arguments appended, for each (name, expression) pair."""
    args = list(call.args)
    equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    for name, value in keywords:
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(value, keyword=cst.Name(name), equal=equal))
    return call.with_changes(args=args)


def passed_on(strategy: str):
    """What a function between the towers and the pipeline passes on: its own parameters."""
    return [(name, cst.Name(name)) for name, _ in tower_params(strategy)]


def tower_keywords(consumer: TowerConsumer, strategy: str, holder: str, config):
    """What each tower passes: its shard, or the dict holding the one shared iterator and how many
    batches it prefetches (the prefetch queue's capacity)."""
    if strategy == "shared-iterator":
        return [(SHARED_PARAM, cst.Name(holder)), (PREFETCH_PARAM, prefetch_capacity(consumer.prefetch_call))]
    return [(SHARD_PARAMS[0], cst.parse_expression(consumer.num_towers, config)),
            (SHARD_PARAMS[1], cst.Name(consumer.loop_var))]


def prefetch_capacity(call: Optional[cst.Call]) -> cst.BaseExpression:
    """The `capacity` of a `prefetch_queue(tensors, capacity=8, ...)` call (its default when not
    given, or when its arguments cannot be read)."""
    try:
        capacity = PrefetchQueue.bind(call).get("capacity") if call is not None else None
    except Unsupported:
        capacity = None
    return capacity if capacity is not None else cst.parse_expression(PREFETCH_QUEUE_CAPACITY)


def tower_input(consumer: TowerConsumer, target: cst.BaseExpression, leading, tf: str, config,
                comments, keywords) -> cst.BaseStatement:
    """`with tf.device('/cpu:0'): <target> = source(..., num_shards=N, shard_index=i)` for one tower.

    Dataset and iterator ops are CPU kernels: under a `/gpu:N` scope they need soft placement.
    """
    call = with_keywords(consumer.source_call, keywords)
    assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], call)])
    return on_cpu([assign], tf, config, list(leading) + list(comments))


def on_cpu(statements, tf: str, config, leading) -> cst.With:
    """`with tf.device('/cpu:0'):` around the statements, with `leading` lines above it."""
    wrapper = cst.parse_statement("with %s.device('/cpu:0'):\n%spass\n" % (tf, config.default_indent), config)
    return wrapper.with_changes(body=wrapper.body.with_changes(body=list(statements)), leading_lines=list(leading))
