"""A chain read before an if/else whose arm makes a second chain, batched together after the `if`.

    queue_a = tf.train.string_input_producer(files_a)      # the head: made on every path
    _, record_a = tf.TFRecordReader().read(queue_a)
    if len(files_b) != 0:
        queue_b = tf.train.string_input_producer(files_b)  # a second chain, in one arm only
        _, record_b = tf.TFRecordReader().read(queue_b)
        pair = tf.stack([decode(record_a), decode(record_b)])
    else:
        pair = tf.stack([decode(record_a), decode(record_a)])
    batch = tf.train.batch([pair], batch_size=32)          # the tail: batches what either arm made

Only one arm runs, so the file builds one of two pipelines: the arm's chains and the head's chain
batched together, or the head's chain alone. Moving a copy of the head to the start of each arm
and a copy of the tail (the statements after the `if` up to and including its batching) to the
end of each arm writes each pipeline whole in its arm, which the recogniser then follows (the
records of the two chains in one arm are zipped: zipped_chains). In the arm with a second chain
the zip pairs the i-th record of the head's chain with the i-th of the arm's, each chain keeping
its own file list, shuffle and epochs, and ends with the first that ends: what one run of the
batching queue's enqueue op read (one record of each; with several threads the queue could pair
records of different runs, which the zip does not).

This module only proposes these rewrites (`find`) and writes them (`sink`); the engine applies them
only when the migration then rewrites the batching of every arm's copy, and otherwise analyses the
file as it is.

Contract (what makes the move meaning-preserving):
- the head is `q = producer(...)` followed by simple statements up to the `if`, all statements of
  a function's body itself (not in a `with`, loop or branch); `q` is read only by the head;
- the `if` ends in a plain `else` (every run goes through exactly one arm) and its arms hold no
  `return`, `raise`, `break`, `continue`, `yield` or `await` (every arm falls through to the
  tail); some arm makes a producer;
- the tests call nothing but `len()` and read only parameters and locals bound before the head,
  none of which the head names (reads, binds or stores into): evaluated before the head instead
  of after it, they give what they gave (no code the head runs can reach what they read, short
  of an alias the function made itself);
- the tail is the simple statements after the `if` up to the first one holding a batching call,
  that one included: run once after whichever arm ran, its copy in each arm runs at the same
  point with the same names bound.
"""
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

import libcst as cst

from qmigrate import cstutil, slim_provider
from qmigrate.names import ImportMap
from qmigrate.rules import BATCHERS, PRODUCERS, rule_for


@dataclass
class ArmZip:
    """The `head` statements (producer first) and `tail` statements (batching last) around `branch`
    copied into each of its arms."""

    head: Tuple[cst.BaseStatement, ...]
    branch: cst.If
    tail: Tuple[cst.BaseStatement, ...]


def find(module: cst.Module, imports: ImportMap) -> List[ArmZip]:
    """The heads, if/elses and tails of the module's functions that have this shape."""
    found: List[ArmZip] = []
    for function in cstutil.functions_in(module):
        if not isinstance(function.body, cst.IndentedBlock):
            continue
        body = function.body.body
        for index in range(len(body)):
            move = _candidate(function, body, index, imports)
            # (one move per `if`: the first producer's, whose head holds any later one's)
            if isinstance(move, ArmZip) and all(other.branch is not move.branch for other in found):
                found.append(move)
    return found


def _test_refusal(test: cst.BaseExpression, named, local) -> Optional[str]:
    """Why `test` may give another value evaluated before the head than after it, or None: it calls
    something but len(), reads a name the head names (whose calls could change what it holds) or
    one that is not the function's own (a module's, which any call could change)."""
    if any(not (isinstance(call.func, cst.Name) and call.func.value == "len") for call in cstutil.calls_of(test)):
        return "a test of the `if` calls a function, which would run before the first chain is made once that " \
               "chain is made in each arm"
    loads = set(cstutil.name_uses(test).loads) - {"len"}
    if loads & named:
        return ("a test of the `if` reads `%s`, which the statements from the first chain's producer to the `if` "
                "name: made in each arm, they would run after the test" % sorted(loads & named)[0])
    if loads - local:
        return ("a test of the `if` reads `%s`, not a parameter or local bound before the first chain's producer: "
                "made in each arm, the chain's code would run after the test and could change it"
                % sorted(loads - local)[0])
    return None


def _branch_reason(branch: cst.If) -> Optional[str]:
    """Why the if/else itself keeps its arms' chains from being zipped with one made before it."""
    arms, tests = _arms(branch)
    if arms is None:
        return "the `if` has no plain `else`, so some path would batch the first chain's records alone"
    if any(cstutil.nodes_of(arm, cstutil.LEAVING) for arm in arms):
        return "an arm may leave the `if` early (return, raise, break, continue, yield or await)"
    return None


def branch_refusal(scope: cst.CSTNode, branch: cst.If, imports: ImportMap) -> str:
    """Why the chains made in the arms of `branch` (a statement in the function `scope`, or in
    another scope) are not zipped with one made before it, as a clause for a diagnostic."""
    body = scope.body.body if isinstance(scope, cst.FunctionDef) and isinstance(scope.body, cst.IndentedBlock) \
        else ()
    at = next((index for index, stmt in enumerate(body) if stmt is branch), None)
    if at is not None:
        index = at - 1
        while index >= 0 and isinstance(body[index], cst.SimpleStatementLine):
            why = _candidate(scope, body, index, imports)
            if isinstance(why, str):
                return why
            index -= 1
    return _branch_reason(branch) or (
        "the arms' chains are zipped with a chain made before the `if` only when that chain's producer and the "
        "statements up to the `if`, and those after it up to the batching, are simple statements of the "
        "function's own body (not in a `with`, loop or branch)")


def _calls_in(node: cst.CSTNode, imports: ImportMap, rules) -> bool:
    return any(rule_for(imports.resolve(call.func)) in rules for call in cstutil.calls_of(node))


def _candidate(function: cst.FunctionDef, body: Sequence[cst.BaseStatement], index: int,
               imports: ImportMap) -> Union[ArmZip, str, None]:
    """The move for the producer at body[index], or why there is none (a clause for a diagnostic),
    or None when no if/else with a producer in an arm follows the statements after it."""
    assign = cstutil.single_assign(body[index])
    if assign is None or not isinstance(assign[0], cst.Name) or not isinstance(assign[1], cst.Call) \
            or rule_for(imports.resolve(assign[1].func)) not in PRODUCERS:
        return None
    queue = assign[0].value
    at = index + 1
    while at < len(body) and isinstance(body[at], cst.SimpleStatementLine):
        at += 1
    if at == len(body) or not isinstance(body[at], cst.If):
        return None
    head, branch = tuple(body[index:at]), body[at]
    if not _calls_in(branch, imports, PRODUCERS):
        return None
    why = _branch_reason(branch)
    if why:
        return why
    named = set()  # every name the head reads, binds or stores into
    for stmt in head:
        if cstutil.nodes_of(stmt, cstutil.LEAVING) or _calls_in(stmt, imports, BATCHERS):
            return "a statement between the first chain's producer and the `if` batches or may leave the function"
        uses = cstutil.name_uses(stmt)
        named |= set(uses.loads) | set(uses.stores) | set(uses.mutated)
    local = set(slim_provider.param_names(function))
    for stmt in body[:index]:
        local |= set(cstutil.scoped_uses(stmt, statement=True).stores)
    for test in _arms(branch)[1]:
        why = _test_refusal(test, named, local)
        if why:
            return why
    end = at + 1
    while end < len(body) and isinstance(body[end], cst.SimpleStatementLine) \
            and not _calls_in(body[end], imports, BATCHERS):
        end += 1
    if end == len(body) or not isinstance(body[end], cst.SimpleStatementLine):
        return ("the statements after the `if` up to the batching are not all simple statements of the "
                "function's own body")
    tail = tuple(body[at + 1:end + 1])
    if any(cstutil.nodes_of(stmt, cstutil.LEAVING) for stmt in tail[:-1]):
        return "a statement between the `if` and the batching may leave the function"
    for other in tuple(body[:index]) + tuple(body[at:]):
        uses = cstutil.scoped_uses(other, statement=True)
        if queue in uses.loads or queue in uses.stores:
            return "the first chain's queue `%s` is also used outside the statements before the `if`" % queue
    return ArmZip(head, branch, tail)


def _arms(branch: cst.If) -> Tuple[Optional[List[cst.IndentedBlock]], List[cst.BaseExpression]]:
    """(the bodies of every arm of an if/elif/else chain, or None without a final `else` or with an
    arm on the line of its test; every test)."""
    arms, tests, fallthrough = cstutil.if_chain(branch)
    if fallthrough or not all(isinstance(arm, cst.IndentedBlock) for arm in arms):
        return None, tests
    return arms, tests


class _Sinker(cst.CSTTransformer):
    def __init__(self, moves: List[ArmZip]):
        self.gone = {id(stmt) for move in moves for stmt in move.head + move.tail}
        self.arms = {}
        for move in moves:
            for arm in _arms(move.branch)[0]:
                self.arms[id(arm)] = move
        self.copies: List[Tuple[cst.BaseStatement, cst.BaseStatement]] = []  # (copy, original)

    def _copy(self, stmt: cst.BaseStatement, first: bool) -> cst.BaseStatement:
        copy = cstutil.block_copy(stmt, first)
        self.copies.append((copy, stmt))
        return copy

    def leave_IndentedBlock(self, original_node, updated_node):
        move = self.arms.get(id(original_node))
        body = list(updated_node.body)
        if move is not None:
            head = [self._copy(stmt, number == 0) for number, stmt in enumerate(move.head)]
            tail = [self._copy(stmt, False) for stmt in move.tail]
            body = head + body + tail
        return updated_node.with_changes(body=self._without_moved(original_node.body, body))

    def _without_moved(self, original: Sequence[cst.BaseStatement], updated: List[cst.BaseStatement]):
        """`updated` without the statements that moved into arms (`original`: the block as written,
        the same statements after what was inserted at the start)."""
        if not any(id(stmt) in self.gone for stmt in original):
            return updated
        assert len(updated) == len(original)  # the moved statements are of a body no arm is
        # (their comments went with their copies)
        return [new for old, new in zip(original, updated) if id(old) not in self.gone]


def sink(module: cst.Module, moves: List[ArmZip]) -> Tuple[cst.Module, List[Tuple[cst.CSTNode, cst.CSTNode]]]:
    """(the module with each move made, (copy as it stands in the new module, original) of every
    statement copied into an arm)."""
    sinker = _Sinker(moves)
    new = module.visit(sinker)  # (libcst rebuilds the parents; the copies stand in it as made)
    return new, sinker.copies
