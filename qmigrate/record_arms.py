"""An if/else whose arms each make the record that the statements after it parse and batch.

    if train:                                          # the head: a file queue, a queue of records
        filename_queue = tf.train.string_input_producer(files, shuffle=True)
    else:
        filename_queue = tf.train.string_input_producer(files, shuffle=False)
    if threads % 4:
        raise ValueError('...')
    examples = tf.RandomShuffleQueue(capacity, min_after_dequeue, [tf.string])
    if num_readers > 1:                                # the arms: two ways of reading a record
        ops = []
        for _ in range(num_readers):
            _, value = tf.TFRecordReader().read(filename_queue)
            ops.append(examples.enqueue([value]))
        tf.train.add_queue_runner(tf.train.QueueRunner(examples, ops))
        serialized = examples.dequeue()
    else:
        _, serialized = tf.TFRecordReader().read(filename_queue)
    rows = []                                          # the tail: parse and batch either record
    for thread_id in range(threads):
        rows.append(parse(serialized, thread_id))
    images, labels = tf.train.batch_join(rows, batch_size)

(inception's `batch_inputs` and the code that copies it). Only one arm runs, so the function
builds one of two pipelines, each a whole chain once the head is made at the start of each arm
that reads it and the tail copied to the end of every arm, which the recogniser then follows arm
by arm. The queue of records is made only in the arm that fills it: the other arm's copy would be
a queue nothing fills or reads, which the original made and never used.

This module only proposes these rewrites (`find`) and writes them (`sink`); the engine applies them
only when the migration then rewrites every queue call of the arms and of the copies, and
otherwise analyses the file as it is.

Contract (what makes the moves meaning-preserving):
- the head statements, the `if` and the tail are statements of one block, in that order, and the
  `if` ends in a plain `else` whose arms hold no `return`, `raise`, `break`, `continue`, `yield` or
  `await`: every run goes through exactly one arm and on to the tail;
- a head statement binds one name to a queue made by a producer or a queue class (`q = ...(...)`),
  or is an if/else whose arms each do that for one same name, with tests that call nothing; the
  arms read that name and nothing else does (neither the tail, nor code after it, nor the
  statements between);
- the statements between the head statements and the `if` (which stay where they are) do not read
  what a head statement binds, bind or change nothing one reads, call nothing but to make an
  exception they raise, and hold no `return`, `break`, `continue`, `yield` or `await`: made later,
  a head statement makes the same queue (a `raise` there now leaves before the queue is made, a
  queue no code would have read);
- the test of the `if` calls nothing and reads nothing a head statement binds: evaluated before the
  head is made, it gives what it gave;
- the tail is the statements after the `if` up to the first one holding a batching call, that one
  included, none of them holding a `return`, `yield` or `await` but the last: run once after
  whichever arm ran, its copy in each arm runs at the same point with the same names bound.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from qmigrate import cstutil
from qmigrate.queue_purpose import QUEUES
from qmigrate.names import ImportMap
from qmigrate.rules import BATCHERS, BUCKETERS, FILTERERS, JOINERS, PRODUCERS, rule_for

_BATCHINGS = BATCHERS + JOINERS + FILTERERS + BUCKETERS
_LEAVES_BETWEEN = (cst.Return, cst.Break, cst.Continue, cst.Yield, cst.Await)


@dataclass
class RecordArms:
    """The `head` statements (each binding `names[i]`) made at the start of the arms of `branch`
    that read their name, and the `tail` statements copied to the end of every arm."""

    head: Tuple[cst.BaseStatement, ...]
    names: Tuple[str, ...]
    branch: cst.If
    tail: Tuple[cst.BaseStatement, ...]


def worth_looking(source: bytes) -> bool:
    """Whether the file may hold the shape (a cheap test on its text)."""
    return b"else" in source and (b".read(" in source or b".dequeue(" in source)


def find(module: cst.Module, imports: ImportMap) -> List[RecordArms]:
    """The heads, if/elses and tails of the blocks of the module's functions that have this shape."""
    found: List[RecordArms] = []
    for function, body, index in _branches(module):
        move = _candidate(function, body, index, imports)
        if isinstance(move, RecordArms):
            found.append(move)
    return found


def _branches(module: cst.Module) -> List[Tuple[cst.FunctionDef, Sequence[cst.BaseStatement], int]]:
    """(function, block, index) of every `if` of a block of a function's own (not of a function or
    class defined in it, which is looked at as a function of its own)."""
    found = []
    for function in cstutil.functions_in(module):
        for block in [function.body] + _blocks_in(function.body):
            if isinstance(block, cst.IndentedBlock):
                found += [(function, block.body, index) for index, stmt in enumerate(block.body)
                          if isinstance(stmt, cst.If)]
    return found


def _blocks_in(node: cst.CSTNode) -> List[cst.IndentedBlock]:
    """The blocks under `node`, but those of the functions and classes defined there."""
    found = []
    for child in cstutil.children(node, tokens=False):
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(child, cst.IndentedBlock):
            found.append(child)
        found += _blocks_in(child)
    return found


def _is_queue_call(node: cst.BaseExpression, imports: ImportMap) -> bool:
    if not isinstance(node, cst.Call):
        return False
    resolved = imports.resolve(node.func)
    return resolved in QUEUES or rule_for(resolved) in PRODUCERS


def _queue_made(stmt: cst.BaseStatement, imports: ImportMap) -> Optional[str]:
    """The name `stmt` binds to a queue it makes (`q = producer(...)`, `q = tf.FIFOQueue(...)`, or
    an if/else whose arms each make one for that name, with tests that call nothing), or None."""
    assign = cstutil.single_assign(stmt)
    if assign is not None:
        if isinstance(assign[0], cst.Name) and _is_queue_call(assign[1], imports):
            return assign[0].value
        return None
    if not isinstance(stmt, cst.If):
        return None
    arms, tests, fallthrough = cstutil.if_chain(stmt)
    if fallthrough or any(cstutil.calls_of(test) for test in tests):
        return None
    names = set()
    for arm in arms:
        if not (isinstance(arm, cst.IndentedBlock) and len(arm.body) == 1):
            return None
        assign = cstutil.single_assign(arm.body[0])
        if assign is None or not isinstance(assign[0], cst.Name) or not _is_queue_call(assign[1], imports):
            return None
        names.add(assign[0].value)
    return names.pop() if len(names) == 1 else None


def _calls_in(node: cst.CSTNode, imports: ImportMap, rules) -> bool:
    return any(rule_for(imports.resolve(call.func)) in rules for call in cstutil.calls_of(node))


def _reads_records(arm: cst.CSTNode) -> bool:
    """Whether the arm reads a record: a `.read(...)` or a dequeue."""
    return any(isinstance(call.func, cst.Attribute) and call.func.attr.value in ("read", "dequeue")
               for call in cstutil.calls_of(arm))


def _calls_only_to_raise(stmt: cst.BaseStatement) -> bool:
    """Whether every call in `stmt` makes the exception of a `raise` (`raise ValueError(...)`)."""
    raised = {id(call) for node in cstutil.nodes_of(stmt, cst.Raise) for call in cstutil.calls_of(node)}
    return all(id(call) in raised for call in cstutil.calls_of(stmt))


def _candidate(function: cst.FunctionDef, body: Sequence[cst.BaseStatement], at: int,
               imports: ImportMap) -> Union[RecordArms, str, None]:
    """The move around the `if` at body[at], or why there is none though the `if` and what
    follows it have the shape (a clause for a diagnostic), or None when they do not."""
    branch = body[at]
    arms, tests, fallthrough = cstutil.if_chain(branch)
    if fallthrough or not all(isinstance(arm, cst.IndentedBlock) for arm in arms):
        return None
    if not any(_reads_records(arm) for arm in arms) or any(_calls_in(arm, imports, PRODUCERS + _BATCHINGS)
                                                            for arm in arms):
        return None  # no record read in the arms, or a chain made whole, or batched, in one
    end = at + 1
    while end < len(body) and not _calls_in(body[end], imports, _BATCHINGS):
        end += 1
    if end == len(body):
        return None
    arm_loads: Set[str] = set()
    for arm in arms:
        arm_loads |= set(cstutil.scoped_uses(arm).loads)
    head: List[Tuple[int, str]] = []
    for index in range(at - 1, -1, -1):
        name = _queue_made(body[index], imports)
        if name is not None and name in arm_loads and all(name != other for _, other in head):
            head.append((index, name))
    if not head:
        return None  # the arms read queues made elsewhere
    head.reverse()
    if any(cstutil.nodes_of(arm, cstutil.LEAVING) for arm in arms):
        return "an arm may leave the `if` early (return, raise, break, continue, yield or await)"
    if any(cstutil.calls_of(test) for test in tests):
        return "a test of the `if` calls a function, which would run before the queues are made"
    tail = tuple(body[at + 1:end + 1])
    if any(cstutil.nodes_of(stmt, (cst.Return, cst.Yield, cst.Await)) for stmt in tail[:-1]):
        return "a statement between the `if` and the batching may leave the function"
    moved = {index for index, _ in head}
    names = {name for _, name in head}
    read_by = {made: set(cstutil.scoped_uses(body[made], statement=True).loads) for made, _ in head}
    for index in range(head[0][0], at):
        if index in moved:
            continue
        stmt = body[index]
        if cstutil.nodes_of(stmt, _LEAVES_BETWEEN) or not _calls_only_to_raise(stmt):
            return ("a statement between the queues and the `if` calls a function or may leave the function: "
                    "it would run before the queues are made")
        uses = cstutil.scoped_uses(stmt, statement=True)
        changed = set(uses.stores) | set(uses.mutated)
        for made, name in head:
            if made < index and name in uses.loads:
                return "a statement between the queue `%s` and the `if` uses it" % name
            if made < index and changed & read_by[made]:
                return ("a statement between the queue `%s` and the `if` binds `%s`, which making the queue reads"
                        % (name, sorted(changed & read_by[made])[0]))
    for test in tests:
        if names & set(cstutil.name_uses(test).loads):
            return "a test of the `if` reads the queue `%s`" % sorted(names & set(cstutil.name_uses(test).loads))[0]
    everywhere = cstutil.scoped_uses(function)
    bindings = cstutil.Bindings()
    cstutil.walk(function, bindings)
    for name in sorted(names):
        made = next(index for index, other in head if other == name)
        in_arms = sum(cstutil.scoped_uses(arm).loads.count(name) for arm in arms)
        bound = len(cstutil.if_chain(body[made])[0]) if isinstance(body[made], cst.If) else 1
        own = cstutil.scoped_uses(body[made], statement=True).loads.count(name)  # (with multiplicity)
        if everywhere.loads.count(name) != own + in_arms:
            return "the queue `%s` is also read outside the arms of the `if`" % name
        if bindings.own.get(name) != bound or name in bindings.declared or name in everywhere.mutated:
            return "the queue `%s` is bound or changed elsewhere in %s()" % (name, function.name.value)
    return RecordArms(tuple(body[index] for index, _ in head), tuple(name for _, name in head), branch, tail)


def refusals(module: cst.Module, imports: ImportMap) -> List[Tuple[Tuple[cst.BaseStatement, ...], cst.If, str]]:
    """(the statements of the block up to the batching, the `if`, why) of every if/else of the
    module's functions with this shape that cannot be moved."""
    found = []
    for function, body, index in _branches(module):
        why = _candidate(function, body, index, imports)
        if isinstance(why, str):
            found.append((tuple(body), body[index], why))
    return found


class _Sinker(cst.CSTTransformer):
    def __init__(self, moves: List[RecordArms]):
        self.gone = {id(stmt) for move in moves for stmt in move.head + move.tail}
        self.arms: Dict[int, RecordArms] = {}
        for move in moves:
            for arm in cstutil.if_chain(move.branch)[0]:
                self.arms[id(arm)] = move
        self.copies: List[Tuple[cst.BaseStatement, cst.BaseStatement]] = []  # (copy, original)
        self.made: Dict[int, List[cst.IndentedBlock]] = {id(move): [] for move in moves}  # each move's new arms

    def _copy(self, stmt: cst.BaseStatement, first: bool) -> cst.BaseStatement:
        copy = cstutil.block_copy(stmt, first)
        self.copies.append((copy, stmt))
        return copy

    def leave_IndentedBlock(self, original_node, updated_node):
        # (a transformer gives back each statement of the block in its place, changed or not)
        body = [new for old, new in zip(original_node.body, updated_node.body) if id(old) not in self.gone]
        move = self.arms.get(id(original_node))
        if move is not None:
            loads = set(cstutil.scoped_uses(original_node).loads)
            needed = [stmt for stmt, name in zip(move.head, move.names) if name in loads]
            head = [self._copy(stmt, number == 0) for number, stmt in enumerate(needed)]
            body = head + body + [self._copy(stmt, False) for stmt in move.tail]
            made = updated_node.with_changes(body=body)
            self.made[id(move)].append(made)
            return made
        return updated_node.with_changes(body=body)


def sink(module: cst.Module, moves: List[RecordArms]
         ) -> Tuple[cst.Module, List[Tuple[cst.CSTNode, cst.CSTNode]], List[List[cst.IndentedBlock]]]:
    """(the module with each move made, (copy as it stands in the new module, original) of every
    statement copied into an arm, the arms of each move's `if` as they stand in the new module)."""
    sinker = _Sinker(moves)
    new = module.visit(sinker)
    return new, sinker.copies, [sinker.made[id(move)] for move in moves]
