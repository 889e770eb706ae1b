"""Per-record code in the arms of an `if`/`else` that batches in each arm: it moves into the map function.

    if training:
        crop = tf.random_crop(wav, [length])       # per-record: reads the record
        crop, = tf.train.shuffle_batch([crop], ...)
    else:
        offset = (total - length) // 2             # no record: read by the per-record code after it
        crop = tf.slice(wav, [offset], [length])
        crop, = tf.train.shuffle_batch([crop], ...)

The map function ends with the same `if`, each arm holding its per-record statements and the plain
assignments they read (`if training: crop = ... else: offset = ...; crop = ...`); the `if` after the
dataset's head keeps, in each arm, the statements that read no record ahead of the arm's tail.

Contract (what makes the move meaning-preserving):
- the condition calls nothing (names, attributes, literals, comparisons, operators), so evaluating
  it again where the map function is traced gives what it gave where the queue was built (the
  map function is traced at that same place); it reads no record (the recogniser refuses that);
- a per-record statement is a simple statement that reads or binds a per-record name (those the
  block had, and what such statements in the same arm bind), holding no `return`/`break` and
  storing into nothing outside (`items.append(x)`);
- a statement of the arm without records that a per-record statement reads is a plain `name =
  value` assignment: it runs in the map function (traced once), and stays in the arm too unless
  nothing but the moved code reads what it binds; any other statement there is refused;
- what the per-record statements bind is read after them only by the arm's batching (its batched
  tensors, not its other arguments), or bound again by its targets, or not read after the `if`.
"""
from collections import Counter
from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.rules.base import Unsupported


class Refused(Exception):
    """The arms' per-record code cannot move; the text says why (a clause for a diagnostic)."""


@dataclass(frozen=True)
class ArmRecords:
    """The `if` the map function ends with, and the statements that leave the arms (by id)."""

    statement: cst.If
    moved: FrozenSet[int]


def calls_nothing(test: cst.BaseExpression) -> bool:
    """The condition calls nothing: evaluated again where the map function is traced, it gives the same."""
    return not cstutil.nodes_of(test, (cst.Call, cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp,
                                       cst.SetComp, cst.Await, cst.Yield))


def arm_records(stmt: cst.If, tainted: Set[str], batchings, batch_targets, loads_in_scope: Counter,
                loads_through_if: Counter, line_of) -> Optional[ArmRecords]:
    """ArmRecords for `stmt`, an if/else whose arms end in their batching (`batchings`: the
    (rule, call) of each arm; `batch_targets`: the names each arm binds the batch to); None when
    no arm has per-record code before its batching. Refused when some has and cannot move.
    `loads_in_scope`: how often the enclosing function reads each name; `loads_through_if`: how
    often the statements up to the `if`, and the `if` itself, read it (the others come after)."""
    arms, moved_ids = [], set()
    arm_blocks = (stmt.body, stmt.orelse.body)
    for block, (rule, call), targets in zip(arm_blocks, batchings, batch_targets):
        moved, stored = _per_record(block.body[:-1], tainted, line_of)
        if moved:
            _check_batching_args(rule, call, stored, line_of)
        arm = _with_inputs(block.body[:-1], moved, line_of)
        arms.append(arm)
        moved_ids |= {id(s) for s in moved} | _only_theirs(arm, moved, loads_in_scope)
        _check_not_read_after(stmt, stored - set(targets), loads_in_scope, loads_through_if, line_of)
    if not moved_ids:
        return None
    if not calls_nothing(stmt.test):
        raise Refused("its condition calls a function, which the map function its arms' per-record code "
                      "moves into would call again")
    new_arms = [block.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])
                for block, body in zip(arm_blocks, arms)]
    statement = stmt.with_changes(body=new_arms[0], orelse=stmt.orelse.with_changes(body=new_arms[1]),
                                  leading_lines=[])
    return ArmRecords(statement, frozenset(moved_ids))


def batching_arm_records(block: cst.IndentedBlock, arm, tainted: Set[str], targets, loads_in_scope: Counter,
                         loads_through_if: Counter, stmt: cst.If, line_of):
    """For an if/else whose other arm batches nothing: the ids of the statements that leave the
    batching arm `block` for the map function, and the statements the map function runs in that
    arm (its per-record statements with the plain assignments they read), both empty when it has
    none. `loads_through_if`: the scope's loads up to the `if` and in it. Refused as arm_records."""
    rule, call = arm
    moved, stored = _per_record(block.body[:-1], tainted, line_of)
    if not moved:
        return frozenset(), ()
    _check_batching_args(rule, call, stored, line_of)
    statements = _with_inputs(block.body[:-1], moved, line_of)
    _check_not_read_after(stmt, stored - set(targets), loads_in_scope, loads_through_if, line_of)
    return frozenset({id(s) for s in moved} | _only_theirs(statements, moved, loads_in_scope)), tuple(statements)


def records_arm_if(stmt: cst.If, records_arm: int, statements, batch_returns: str, records_returns: str) -> cst.If:
    """The `if` a map function ends with when one of the two arms of `stmt` batches and the other
    (`records_arm`) takes the records one at a time: the batching arm runs its per-record
    `statements` and returns what it batches, the other returns what it reads. The function's own
    last `return` is the other arm's, so an `else` (or the last `elif`) holding only that is left
    out; when the records arm comes first, its test stays, returning."""
    def block(body, expression):
        returned = cst.SimpleStatementLine([cst.Return(cst.parse_expression(expression))])
        body = list(body)
        if body:  # its comments stay with it; a blank line does not open the arm
            body[0] = body[0].with_changes(leading_lines=[line for line in body[0].leading_lines
                                                          if line.comment is not None])
        return cst.IndentedBlock(body=body + [returned])
    batching = block(statements, batch_returns)
    if records_arm == 1:
        return stmt.with_changes(body=batching, orelse=None, leading_lines=[])
    records = block((), records_returns)
    if isinstance(stmt.orelse, cst.Else):
        orelse = stmt.orelse.with_changes(body=batching)
    else:
        orelse = stmt.orelse.with_changes(body=batching, orelse=None)
    return stmt.with_changes(body=records, orelse=orelse, leading_lines=[])


def always_returns(statement: cst.BaseStatement) -> bool:
    """Every path through `statement` ends in a `return` (an if/elif/else whose arms all do)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return isinstance(statement.body[-1], cst.Return)
    if not isinstance(statement, cst.If) or not isinstance(statement.body, cst.IndentedBlock):
        return False
    node = statement
    while isinstance(node, cst.If):
        if not (node.body.body and always_returns(node.body.body[-1])):
            return False
        node = node.orelse
    return isinstance(node, cst.Else) and bool(node.body.body) and always_returns(node.body.body[-1])


def _per_record(statements, tainted: Set[str], line_of) -> Tuple[List[cst.BaseStatement], Set[str]]:
    """The arm's per-record statements, and the names they bind."""
    names, moved, stored = set(tainted), [], set()
    for before in statements:
        uses = cstutil.name_uses(before)
        if not (names & (set(uses.loads) | set(uses.stores) | set(uses.mutated))):
            continue
        if uses.mutated - names:
            raise Refused("a per-record statement in an arm (line %d) stores into `%s`, which lives outside the "
                          "record path" % (line_of(before), sorted(uses.mutated - names)[0]))
        moved.append(before)
        names |= set(uses.stores)
        stored |= set(uses.stores)
    return moved, stored


def _with_inputs(statements, moved, line_of) -> List[cst.BaseStatement]:
    """`moved` in order, with the statements before them that bind what they read (transitively)."""
    needed: Set[str] = set()
    kept = []
    moved_ids = {id(s) for s in moved}
    for before in reversed(statements):
        uses = cstutil.name_uses(before)
        if id(before) in moved_ids:
            kept.append(before)
            needed |= set(uses.loads)
            continue
        if not (set(uses.stores) & needed):
            continue
        assign = cstutil.single_assign(before)
        if assign is None or not isinstance(assign[0], cst.Name):
            raise Refused("a per-record statement in an arm reads `%s`, bound at line %d by a statement that is "
                          "not a plain assignment" % (sorted(set(uses.stores) & needed)[0], line_of(before)))
        kept.append(before)
        needed |= set(uses.loads)
    return list(reversed(kept))


def _only_theirs(arm, moved, loads_in_scope: Counter) -> Set[int]:
    """The assignments `arm` holds for its per-record statements whose names nothing else reads:
    they leave the arm with them."""
    moved_ids = {id(s) for s in moved}
    loads = Counter()
    for stmt in arm:
        loads.update(cstutil.name_uses(stmt).loads)
    return {id(stmt) for stmt in arm if id(stmt) not in moved_ids and all(
        loads_in_scope[name] == loads[name] for name in cstutil.name_uses(stmt).stores)}


def _check_batching_args(rule, call: cst.Call, stored: Set[str], line_of) -> None:
    """The arm's batching reads what its per-record statements bind only as its batched tensors."""
    try:
        bound = rule.bind(call)
    except Unsupported as why:  # an argument the batching does not take
        raise Refused(str(why))
    for name, value in bound.items():
        if name in ("tensors", "tensors_list"):
            continue
        touched = set(cstutil.name_uses(value).loads) & stored
        if touched:
            raise Refused("the batching at line %d reads `%s`, bound per record in its arm, for its `%s`" % (
                line_of(call), sorted(touched)[0], name))


def _check_not_read_after(stmt: cst.If, names: Set[str], loads_in_scope: Counter, loads_through_if: Counter,
                          line_of) -> None:
    """A per-record name no batching rebinds is not read after the `if`."""
    for name in sorted(names):
        if loads_in_scope[name] > loads_through_if[name]:
            raise Refused("`%s`, bound per record in an arm of the if/else (line %d), is read after it, where "
                          "it would no longer be bound" % (name, line_of(stmt)))
