"""A producer made before an `if` whose arms read its queue: it is made in each arm that reads it.

    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    def decode(queue): ...
    if fast:
        ...reads filename_queue, batches what it read...
    else:
        example = decode(filename_queue)
        batch = tf.train.shuffle_batch([example], ...)

A chain split like that is not one block's: the producer is the scope's, the reads and batchings
the arms'. Only one arm runs each time the `if` does, so each arm's chain read the queue alone:
made as the arm's first statement, each copy is read by that chain only, and each arm's block
holds a whole chain (recognised alone; blocks.exclusive_loads lets names repeat across arms).

This module only proposes these rewrites (`find`) and writes them (`sink`); the engine applies them
only when the migration then leaves fewer queue calls, and otherwise analyses the file as it is.

Contract (what makes the move meaning-preserving):
- the producer is a one-target assignment `q = producer(...)`, a statement of a module's or a
  function's body itself (not in a `with`, loop or branch), and the `if` is a later statement of
  that same body: no loop runs the arms again, and both stand under the same `with`s;
- the statements between them are definitions only (`def`/`class`, undecorated, whose defaults
  and bases call nothing), and the tests of the `if`/`elif`s call nothing: the producer's
  arguments, evaluated in the arm instead, see the same values (the definitions bind no name
  they read), and nothing observable ran in between;
- `q` is bound nowhere else in the scope, and read only in the arms' bodies (not in a test, nor
  after the `if`): an arm that does not read it gets no copy (its queue was never read there).
"""
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.rules import PRODUCERS, SLICERS, rule_for


@dataclass
class ArmMove:
    """`statement` (`queue = producer(...)`) moved into each block of `arms` (arms of `branch`)."""

    statement: cst.SimpleStatementLine
    producer: cst.Call
    queue: str
    branch: cst.If
    arms: Tuple[cst.IndentedBlock, ...]


def find(module: cst.Module, imports: ImportMap) -> List[ArmMove]:
    """The producers of the module whose queue is read only in the arms of a later `if`."""
    found: List[ArmMove] = []
    bodies: List[Sequence[cst.BaseStatement]] = [module.body]
    bodies += [function.body.body for function in cstutil.functions_in(module)
               if isinstance(function.body, cst.IndentedBlock)]
    for body in bodies:
        for index, stmt in enumerate(body):
            move = _candidate(body, index, imports)
            if move is not None:
                found.append(move)
    return found


def _candidate(body: Sequence[cst.BaseStatement], index: int, imports: ImportMap) -> Optional[ArmMove]:
    stmt = body[index]
    assign = cstutil.single_assign(stmt)
    if assign is None or not isinstance(assign[0], cst.Name) or not isinstance(assign[1], cst.Call):
        return None
    queue, producer = assign[0].value, assign[1]
    if rule_for(imports.resolve(producer.func)) not in PRODUCERS + SLICERS:
        return None
    later = index + 1
    while later < len(body) and _definition_only(body[later]):
        later += 1
    if later == len(body) or not isinstance(body[later], cst.If):
        return None
    branch = body[later]
    arms, tests = _arms(branch)
    if any(cstutil.calls_of(test) or queue in cstutil.name_uses(test).loads for test in tests):
        return None
    defined = set()
    for between in body[index + 1:later]:
        defined |= set(cstutil.scoped_uses(between, statement=True).stores)
    if defined & set(cstutil.name_uses(producer).loads):
        return None
    for other in body:
        if other is stmt or other is branch:
            continue
        uses = cstutil.scoped_uses(other, statement=True)
        if queue in uses.loads or queue in uses.stores:
            return None
    reading = tuple(arm for arm in arms if queue in cstutil.scoped_uses(arm).loads)
    if not reading or any(queue in cstutil.scoped_uses(arm).stores for arm in arms):
        return None
    return ArmMove(stmt, producer, queue, branch, reading)


def _definition_only(stmt: cst.BaseStatement) -> bool:
    """A `def` or `class` whose evaluation calls nothing (no decorator; defaults, annotations and
    bases free of calls): running it binds its name and nothing else."""
    if isinstance(stmt, cst.FunctionDef):
        params = stmt.params
        heads = [param.default for param in list(params.params) + list(params.kwonly_params) + list(
            params.posonly_params) if param.default is not None]
        heads += [param.annotation for param in list(params.params) + list(params.kwonly_params)
                  if param.annotation is not None]
        heads += [stmt.returns] if stmt.returns is not None else []
    elif isinstance(stmt, cst.ClassDef):
        heads = list(stmt.bases) + list(stmt.keywords)
    else:
        return False
    return not stmt.decorators and not any(cstutil.calls_of(head) for head in heads)


def _arms(branch: cst.If) -> Tuple[List[cst.IndentedBlock], List[cst.BaseExpression]]:
    """(the bodies of every arm of an if/elif/else chain, every test)."""
    arms, tests, _ = cstutil.if_chain(branch)
    return [arm for arm in arms if isinstance(arm, cst.IndentedBlock)], tests


class _Sinker(cst.CSTTransformer):
    def __init__(self, moves: List[ArmMove]):
        self.statements = {id(move.statement): move for move in moves}
        self.arms = {id(arm): move for move in moves for arm in move.arms}
        self.inserted = {id(move): [] for move in moves}  # the copies' producer calls in the new module

    def leave_IndentedBlock(self, original_node, updated_node):
        move = self.arms.get(id(original_node))
        body = list(updated_node.body)
        if move is not None:
            copy = move.statement.deep_clone().with_changes(leading_lines=())  # its own nodes
            self.inserted[id(move)].append(cstutil.single_assign(copy)[1])
            body.insert(0, copy)
        return updated_node.with_changes(body=self._without_producers(original_node.body, body))

    def leave_Module(self, original_node, updated_node):
        return updated_node.with_changes(body=self._without_producers(original_node.body, list(updated_node.body)))

    def _without_producers(self, original: Sequence[cst.BaseStatement], updated: List[cst.BaseStatement]):
        """`updated` without the moved producers (a copy, if any, leads it: one statement more)."""
        shift = len(updated) - len(original)
        out: List[cst.BaseStatement] = updated[:shift]
        carried: List[cst.EmptyLine] = []
        for old, new in zip(original, updated[shift:]):
            if id(old) in self.statements:
                carried = list(new.leading_lines)  # the producer's comments stay with what follows
                continue
            if carried:
                new = new.with_changes(leading_lines=carried + list(new.leading_lines))
                carried = []
            out.append(new)
        return out


def sink(module: cst.Module, moves: List[ArmMove]) -> Tuple[cst.Module, List[List[cst.Call]]]:
    """(the module with each move made, the copies' producer calls as they stand in it, per move)."""
    sinker = _Sinker(moves)
    new = module.visit(sinker)
    return new, [sinker.inserted[id(move)] for move in moves]
