"""An if/else that picks the queue class by a test and also holds, in each arm, that arm's
per-record code and settings (the shape of the ResNet CIFAR input and its copies):

    if mode == 'train':
        image = tf.random_crop(image, [24, 24, 3])        # per-record code of the arm
        example_queue = tf.RandomShuffleQueue(...)        # the queue class of the arm
        num_threads = 16                                  # a setting the runner reads
    else:
        image = tf.image.per_image_standardization(image)
        example_queue = tf.FIFOQueue(...)
        num_threads = 1

is split into ifs on the same test, the settings first, then the per-record code, then the queues:

    if mode == 'train':
        num_threads = 16
    else:
        num_threads = 1
    if mode == 'train':
        image = tf.random_crop(image, [24, 24, 3])
    else:
        image = tf.image.per_image_standardization(image)
    if mode == 'train':
        example_queue = tf.RandomShuffleQueue(...)
    else:
        example_queue = tf.FIFOQueue(...)

which the recogniser follows as it is: per-record code in an if/else, and a queue class chosen by
a test (handbuilt.chosen_queue), whose runner reads a setting made outside the per-record code.

This module only proposes these rewrites (`find`) and writes them (`split`); the engine applies
them only when the migration then rewrites both queue constructors, and otherwise analyses the
file as it is.

Contract (what makes the split meaning-preserving):
- the `if` has a plain `else` and no `elif`; its test calls nothing and reads no name that a
  statement of either arm binds or changes: evaluated once per new `if`, it gives one answer, and
  every run goes through the same arm of each;
- each arm binds the queue's name in exactly one statement, `q = tf.RandomShuffleQueue(...)` in
  one and `q = tf.FIFOQueue(...)` in the other, and no other statement of the arms reads or binds
  it; the arms hold no `return`, `raise`, `break`, `continue`, `yield`, `await`, `global` or
  `nonlocal` (every run goes through the whole arm);
- a setting is `name = value` whose value is made of literals and names only (it calls nothing,
  reads no attribute or item: nothing the other statements do can change what it gives, but a
  binding), none of them (nor `name`) bound with a call in the function: a Python value, not a
  tensor (`x = x * 2.0` on a tensor `x` is per-record code);
- in each arm, any two statements whose order the split changes are independent: neither binds
  or changes (`x.a = ...`, `x[i] = ...`) a name the other reads, binds or changes;
- some arm holds a statement besides its queue (else the `if` is already a chosen queue).
"""
from dataclasses import dataclass
from typing import List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap

_SHUFFLE, _FIFO = "tensorflow.RandomShuffleQueue", "tensorflow.FIFOQueue"
_LEAVING = cstutil.LEAVING + (cst.Global, cst.Nonlocal)
_PLAIN = (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.BinaryOperation, cst.UnaryOperation,
          cst.Tuple, cst.List, cst.Element, cst.LeftParen, cst.RightParen)
SETTINGS, RECORDS, QUEUE = range(3)  # the groups, in the order the split writes them


@dataclass
class Split:
    """`branch`, whose arms are written as one if per group: each arm's statements by group."""

    branch: cst.If
    queue: str
    groups: Tuple[Tuple[Tuple[cst.BaseStatement, ...], ...], ...]  # [arm][group] -> statements
    calls: Tuple[cst.Call, ...]  # the two queue constructors, as they stand in the file


def worth_looking(source: bytes) -> bool:
    """Whether the file may hold the shape (a cheap test on its text)."""
    return b"RandomShuffleQueue" in source and b"FIFOQueue" in source and b"else" in source


def find(module: cst.Module, imports: ImportMap) -> List[Split]:
    """The ifs of the module that choose a queue class and hold more than the queues."""
    scopes = _Scopes()
    cstutil.walk(module, scopes)
    found = []
    for branch, scope in scopes.ifs:
        split = _candidate(branch, imports, _computed(scope))
        if split is not None:
            found.append(split)
    return found


class _Scopes(cst.CSTVisitor):
    """Each if of the module with the function (or module) whose code it is."""

    def __init__(self):
        self.ifs: List[Tuple[cst.If, cst.CSTNode]] = []
        self._scopes: List[cst.CSTNode] = []

    def visit_Module(self, node):
        self._scopes.append(node)

    def visit_FunctionDef(self, node):
        self._scopes.append(node)

    def leave_FunctionDef(self, node):
        self._scopes.pop()

    def visit_If(self, node):
        self.ifs.append((node, self._scopes[-1]))


def _computed(scope: cst.CSTNode) -> Set[str]:
    """The names statements of `scope` bind with a call (tensors, among others): a value that
    reads one is not a setting."""
    names: Set[str] = set()
    for stmt in cstutil.nodes_of(scope, (cst.SimpleStatementLine, cst.For, cst.With)):
        if cstutil.calls_of(stmt):
            uses = cstutil.scoped_uses(stmt, statement=True)
            names |= set(uses.stores)
    return names


def _candidate(branch: cst.If, imports: ImportMap, computed: Set[str]) -> Optional[Split]:
    orelse = branch.orelse
    if not (isinstance(orelse, cst.Else) and isinstance(branch.body, cst.IndentedBlock)
            and isinstance(orelse.body, cst.IndentedBlock)):
        return None
    arms = (list(branch.body.body), list(orelse.body.body))
    queues = [_queue_of(arm, imports) for arm in arms]
    if None in queues or queues[0][0] != queues[1][0] or {queues[0][2], queues[1][2]} != {_SHUFFLE, _FIFO}:
        return None
    if len(arms[0]) + len(arms[1]) == 2 or cstutil.calls_of(branch.test):
        return None
    name = queues[0][0]
    tested = set(cstutil.name_uses(branch.test).loads)
    groups = []
    for arm, (_, queue_stmt, _, _) in zip(arms, queues):
        for stmt in arm:
            uses = cstutil.scoped_uses(stmt, statement=True)
            if cstutil.nodes_of(stmt, _LEAVING) or tested & (set(uses.stores) | uses.mutated):
                return None
            if stmt is not queue_stmt and (name in uses.loads or name in uses.stores or name in uses.mutated):
                return None
        grouped = [[stmt for stmt in arm if _group(stmt, queue_stmt, computed) == group]
                   for group in (SETTINGS, RECORDS, QUEUE)]
        if not _reorderable(arm, [stmt for group in grouped for stmt in group]):
            return None
        groups.append(tuple(tuple(group) for group in grouped))
    return Split(branch, name, tuple(groups), (queues[0][3], queues[1][3]))


def _queue_of(arm, imports: ImportMap) -> Optional[Tuple[str, cst.BaseStatement, str, cst.Call]]:
    """(name, statement, queue class, constructor) of the one statement of `arm` that binds a
    name to a RandomShuffleQueue or a FIFOQueue."""
    found = []
    for stmt in arm:
        assign = cstutil.single_assign(stmt)
        if assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call):
            kind = imports.resolve(assign[1].func)
            if kind in (_SHUFFLE, _FIFO):
                found.append((assign[0].value, stmt, kind, assign[1]))
    return found[0] if len(found) == 1 else None


def _group(stmt: cst.BaseStatement, queue_stmt: cst.BaseStatement, computed: Set[str]) -> int:
    if stmt is queue_stmt:
        return QUEUE
    assign = cstutil.single_assign(stmt)
    if assign and isinstance(assign[0], cst.Name) and _plain(assign[1]) and not (
            computed & ({assign[0].value} | set(cstutil.name_uses(assign[1]).loads))):
        return SETTINGS
    return RECORDS


def _plain(node: cst.CSTNode) -> bool:
    """Whether `node` is made of literals, names and operators only."""
    if not isinstance(node, _PLAIN):
        return False
    return all(_plain(child) for child in node.children
               if isinstance(child, (cst.BaseExpression, cst.Element)))


def _reorderable(before: List[cst.BaseStatement], after: List[cst.BaseStatement]) -> bool:
    """Whether every two statements whose order differs between `before` and `after` are
    independent (neither binds or changes a name the other reads, binds or changes)."""
    position = {id(stmt): index for index, stmt in enumerate(after)}
    for first in range(len(before)):
        for second in range(first + 1, len(before)):
            a, b = before[first], before[second]
            if position[id(a)] < position[id(b)]:
                continue
            if _touched(a) & _seen(b) or _touched(b) & _seen(a):
                return False
    return True


def _touched(stmt) -> Set[str]:
    uses = cstutil.scoped_uses(stmt, statement=True)
    return set(uses.stores) | set(uses.mutated)


def _seen(stmt) -> Set[str]:
    uses = cstutil.scoped_uses(stmt, statement=True)
    return set(uses.loads) | set(uses.stores) | set(uses.mutated)


class _Splitter(cst.CSTTransformer):
    def __init__(self, splits: List[Split]):
        self.splits = {id(split.branch): split for split in splits}
        self.queues: List[Tuple[cst.Call, cst.Call]] = []  # (constructor in the new module, as written)

    def leave_If(self, original_node, updated_node):
        split = self.splits.get(id(original_node))
        if split is None:
            return updated_node
        written = []
        for group in (SETTINGS, RECORDS, QUEUE):
            arms = [split.groups[arm][group] for arm in (0, 1)]
            if not arms[0] and not arms[1]:
                continue
            bodies = [list(arm) or [cst.SimpleStatementLine([cst.Pass()])] for arm in arms]
            branch = original_node.with_changes(
                body=original_node.body.with_changes(body=bodies[0]),
                orelse=original_node.orelse.with_changes(body=original_node.orelse.body.with_changes(body=bodies[1])))
            if written:
                branch = branch.with_changes(leading_lines=())
            written.append(branch)
        self.queues += [(call, call) for call in split.calls]
        return cst.FlattenSentinel(written)


def split(module: cst.Module, splits: List[Split]) -> Tuple[cst.Module, List[Tuple[cst.Call, cst.Call]]]:
    """(the module with each if split, (queue constructor in it, as written) pairs)."""
    splitter = _Splitter(splits)
    return module.visit(splitter), splitter.queues
