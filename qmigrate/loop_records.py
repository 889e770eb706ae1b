"""Per-record code in a loop that batches one shared reader's records once per iteration.

    record = read_line(list_path)                  # one reader, before the loop
    for i in range(num_sets):
        features = distort(record.image)           # per-record: reads the record
        if centred:                                # per-record too (no return/break/continue)
            features = features - offset
        batch = make_batch(features, record.label, ...)   # one batching (or batching helper) call
        batches.append(batch)                      # the batch, not the records

Every iteration's batch queue pulled records from the one reader, so each record reached exactly
one iteration's batch. Migrated, iteration i batches shard i of the records (recognise's
TowerLoopBatch), and the loop's per-record statements join the map function, defined before the
loop and traced where each iteration batches.

Contract (`scan` finds the statements, `refusal` says why they cannot move, or None):
- after the batching, nothing in the loop reads a record (or what the per-record code made);
- a per-record statement holds no return/break/continue, stores into nothing (`x.y = ...`), calls
  no queue API (a second batching), and sits under the same `with`s as the batching;
- nothing in the loop before the batching rebinds what the chain before the loop reads (the
  dataset is built in the loop, from the values there), and the loop variable is not one of them;
- what the per-record statements bind is bound nowhere else in the scope (in the map function it
  is a local) and read only by them and the batching; none rebinds a record of before the loop
  (each iteration would work on what the one before made of it);
- what they read is not rebound in the loop between them and the batching (the function is
  traced there), nor computed earlier in the loop by a statement with a call: the function would
  capture that one tensor, where the queue's runners ran the call again for each record.
"""
from collections import Counter
from typing import Callable, List, Optional, Sequence, Set

import libcst as cst

from qmigrate import cstutil
from qmigrate.blocks import Leaf


def _uses(leaf: Leaf):
    return cstutil.name_uses(leaf.original)


def scan(leaves: Sequence[Leaf], tainted: Set[str], is_batching: Callable[[Leaf], bool],
         is_queue_call: Callable[[cst.Call], bool], line: int):
    """(per-record leaves, the batching leaf or None) of the loop body's leaves, or a reason (str)
    the loop's use of the records is refused. `tainted`: the records before the loop."""
    seen, records, batch = set(tainted), [], None
    for leaf in leaves:
        uses = _uses(leaf)
        if not seen & set(uses.loads):
            continue
        used = sorted(seen & set(uses.loads))[0]
        if batch is not None:
            return ("the loop at line %d reads the per-record tensor `%s` again after its batching, so a record "
                    "would be used outside the iteration that batches it" % (line, used))
        if is_batching(leaf):
            batch = leaf
            continue
        if uses.control:
            return ("the loop at line %d works on the per-record tensor `%s` in a statement with control flow (%s) "
                    "before its batching, which the map function could not hold"
                    % (line, used, sorted(uses.control)[0]))
        if uses.mutated:
            return ("the loop at line %d stores into `%s` from its per-record code, which the map function could "
                    "not do" % (line, sorted(uses.mutated)[0]))
        queued = [call for call in cstutil.calls_of(leaf.original) if is_queue_call(call)]
        if queued:
            return ("the loop at line %d passes the per-record tensor `%s` to %s() inside a larger statement; "
                    "qmigrate follows one batching per iteration, assigned to names"
                    % (line, used, cst.Module([]).code_for_node(queued[0].func)))
        records.append(leaf)
        seen |= uses.stores
    return records, batch


def refusal(leaves: Sequence[Leaf], records: List[Leaf], batch: Leaf, loop_var: str, tainted: Set[str],
            built_from: Set[str], bound_outside: Callable[[str], bool], scope_loads: Counter,
            line: int) -> Optional[str]:
    """Why the loop's per-record statements (`records`, before `batch`) cannot move into the map
    function, or None. `built_from`: what the chain before the loop reads, and its records;
    `bound_outside(name)`: the scope binds `name` outside the loop (a parameter, or another
    statement); `scope_loads`: every read of each name in the scope."""
    if any(leaf.withs != batch.withs for leaf in records):
        return "the loop at line %d works on the records under another `with` than its batching's" % line
    end = leaves.index(batch)
    others = [leaf for leaf in leaves if leaf not in records]
    for leaf in [leaf for leaf in leaves[:end] if leaf not in records]:
        rebound = built_from & (_uses(leaf).stores | _uses(leaf).mutated)
        if rebound:
            return ("the loop at line %d rebinds `%s` before its batching, and the records or the queue before "
                    "the loop depend on it" % (line, sorted(rebound)[0]))
    if loop_var in built_from:
        return "the loop at line %d rebinds `%s`, which the records or the queue before it read" % (line, loop_var)
    inside, record_loads = set(), Counter()
    for leaf in records:
        inside |= _uses(leaf).stores
        record_loads.update(_uses(leaf).loads)
    counted = record_loads + Counter(_uses(batch).loads)
    for name in sorted(inside):
        if name in tainted:
            return ("the loop at line %d rebinds `%s`, a per-record tensor read before the loop, so each iteration "
                    "would work on what the one before made of it" % (line, name))
        if name == loop_var or bound_outside(name) or any(name in _uses(leaf).stores for leaf in others):
            return ("the loop at line %d binds `%s` in its per-record code, and `%s` is bound outside that code "
                    "too; in the map function it would be a name of its own" % (line, name, name))
        if scope_loads[name] != counted[name]:
            return ("the loop at line %d binds `%s` in its per-record code, and code other than that and its "
                    "batching reads it" % (line, name))
    for record in records:
        reads, at = set(_uses(record).loads), leaves.index(record)
        for leaf in others[:]:
            where = leaves.index(leaf)
            if where >= end:
                continue
            if where < at and reads & _uses(leaf).stores and cstutil.calls_of(leaf.original):
                return ("the loop at line %d computes `%s` with a call outside its per-record code and that code "
                        "reads it: the map function would capture the one tensor instead of running the call for "
                        "each record" % (line, sorted(reads & _uses(leaf).stores)[0]))
            rebound = reads & (_uses(leaf).stores | _uses(leaf).mutated)
            if where > at and rebound:
                return ("the loop at line %d rebinds `%s` between its per-record code and its batching, so the map "
                        "function would see another value" % (line, sorted(rebound)[0]))
    return None
