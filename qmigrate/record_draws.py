"""Random draws made before the chain for its per-record code: they move into the map function.

    side = tf.constant(sides)
    side = tf.random_shuffle(side)[0]      # a random short side
    queue = tf.train.string_input_producer(files)
    image = read_and_resize(queue, side)   # per-record code reads it
    batch = tf.train.batch([image], ...)

The batch queue's enqueue op ran the draw anew for each record it enqueued, so each image got
its own short side. A map function that captured `side` from outside would hold one value (and
a one-shot iterator cannot capture a random op at all: "Cannot capture a stateful node"). Moved
into the map function, the draw runs once per record, as it did.

A statement moves (pulled) when:
- it draws (tf.random_shuffle, random_uniform, ...: the random ops of the recogniser's stateful
  list; never a variable, a placeholder, a py_func or the global step, which must stay one), or
  derives from one that moves, and the per-record code that moves reads what it binds; or it makes
  a tensor (every call, if any, a TensorFlow op) that a moving statement reads;
- it is one simple assignment to plain names, in the function's own straight-line body, under
  the same `with`s as the read, and defers nothing (no lambda);
- nothing but the moved code (and the batched tensors, which the map function returns) reads what
  it binds after it (not the batching's other arguments, not the code after the batch: they would
  see another draw).
The recogniser's usual checks then hold for the moved statements as for the per-record code (a
rebound outer name starts the function from a copy, map_locals; what they read must not change
before the batch).
"""
from collections import Counter
from typing import Callable, Iterable, Set, Tuple

import libcst as cst

from qmigrate import cstutil

# The last names of TensorFlow's random ops: the stateful ops a draw may call (the recogniser's
# and captured_params' stateful lists, and drawn_arguments', start from them).
RANDOM_CALLS = frozenset(("random_uniform", "random_normal", "truncated_normal", "random_shuffle", "random_gamma",
                          "random_poisson", "multinomial"))
# The same as prefixes of resolved names, with the `tf.random` module (1.12+).
RANDOM_OPS = tuple("tensorflow." + name for name in sorted(RANDOM_CALLS)) + ("tensorflow.random.",)


def pulled(recogniser, record_indices: Iterable[int], kept, chain, batch_index: int, read_index: int,
           map_returns: str, stateful_ops: Tuple[str, ...], python_valued: Tuple[str, ...],
           defers: Callable[[cst.CSTNode], bool]) -> Tuple[int, ...]:
    """The leaves, before the batch and outside the chain, that move into the map function with
    the per-record code (sorted; () when none). `map_returns`: what the map function returns (the
    batching's tensors, which the batching statement reads); `stateful_ops`, `python_valued`:
    the recogniser's prefixes of TensorFlow's stateful and Python-valued calls; `defers`: its test
    of a statement holding code that runs later."""
    if not (isinstance(recogniser.scope, cst.FunctionDef) and recogniser._straight_body):
        return ()
    moved = [index for index in record_indices if index not in kept]
    chained = set(chain) | set(record_indices)
    binder = {}  # name -> the leaf outside the chain that last bound it, before the batch
    drawn: Set[str] = set()  # names bound by a draw, or derived from one
    kinds = {}  # leaf -> "draw" | "tensor" | None (neither, or one that must stay)
    for index in range(batch_index):
        uses = recogniser.uses[index]
        if index in chained:
            for name in uses.stores:
                binder.pop(name, None)
                drawn.discard(name)
            continue
        kind = _kind(recogniser, index, stateful_ops, python_valued)
        derives = bool(set(uses.loads) & drawn)
        kinds[index] = kind
        for name in uses.stores:
            binder[name] = index
            if kind == "draw" or (derives and kind == "tensor"):
                drawn.add(name)
            else:
                drawn.discard(name)
    try:
        returned = Counter(cstutil.name_uses(cst.parse_expression("(%s)" % map_returns)).loads) if map_returns \
            else Counter()
    except cst.ParserSyntaxError:
        return ()
    reads = set(returned)
    for index in moved:
        reads |= set(recogniser.uses[index].loads)
    roots = {binder[name] for name in reads & drawn}
    if not roots:
        return ()
    taken, pending = set(), sorted(roots)
    while pending:
        index = pending.pop()
        if index in taken:
            continue
        if kinds.get(index) is None or not _movable(recogniser, index, read_index, defers):
            return ()
        taken.add(index)
        for name in set(recogniser.uses[index].loads):
            source = recogniser._last_binding(name, index)
            if source is not None and source not in chained and kinds.get(source) is not None:
                pending.append(source)  # what it reads moves with it, but what other calls made (captured)
    inside = set(moved) | taken
    for index in taken:
        for name in recogniser.uses[index].stores:
            for later in range(index + 1, len(recogniser.body)):
                loads = recogniser.uses[later].loads.count(name) if later not in inside else 0
                if later == batch_index:
                    loads -= returned[name]  # the batched tensors are the map function's return
                if loads > 0:
                    return ()
    return tuple(sorted(taken))


def _kind(recogniser, index: int, stateful_ops, python_valued):
    """"draw" for an assignment whose calls are TensorFlow ops, one a random op; "tensor" for one
    whose calls (if any: `scaled = jitter * 2.0`) are all TensorFlow ops that make tensors; None
    for anything else."""
    stmt = recogniser.body[index]
    if not isinstance(cstutil.single_small(stmt), cst.Assign):
        return None
    resolved = [recogniser.imports.resolve(call.func) or "" for call in cstutil.calls_of(stmt)]
    if any(not name.startswith("tensorflow.") or name.startswith(python_valued) for name in resolved):
        return None
    if any(name.startswith(stateful_ops) and not name.startswith(RANDOM_OPS) for name in resolved):
        return None  # a variable, a placeholder, a py_func, the global step: one for the program
    return "draw" if any(name.startswith(RANDOM_OPS) for name in resolved) else "tensor"


def _movable(recogniser, index: int, read_index: int, defers) -> bool:
    stmt = recogniser.body[index]
    small = cstutil.single_small(stmt)
    if not isinstance(small, cst.Assign) or defers(stmt):
        return False
    for target in small.targets:
        names = ([element.value for element in target.target.elements]
                 if isinstance(target.target, (cst.Tuple, cst.List)) else [target.target])
        if not all(isinstance(name, cst.Name) for name in names):
            return False
    return [id(w) for w in recogniser.withs[index]] == [id(w) for w in recogniser.withs[read_index]]
