"""In-memory arrays batched with `enqueue_many=True`: their rows, again and again.

    images = np.load('images.npy')
    image_batch, label_batch = tf.train.shuffle_batch([images, labels], 32, capacity=500,
                                                      min_after_dequeue=200, enqueue_many=True)

Each run of the batcher's enqueue op puts in every row of the arrays, in order (one run's rows go
in together, whatever the number of threads), and its runners run it for ever: the queue sees
the rows in order, over and over. That is the rows of `slice_input_producer(arrays,
shuffle=False)` batched one at a time, which the recogniser migrates
(`Dataset.from_tensor_slices`, repeated, shuffled with min_after_dequeue for a shuffle_batch,
batched). This module writes the file that way (`find`, `sink`); the engine keeps a move only
where the migration then rewrites both calls, and the producer it added is not reported.

Contract (what makes the move meaning-preserving):
- the batcher is tf.train.batch or tf.train.shuffle_batch, alone in its statement, with a literal
  `enqueue_many=True` keyword; its tensors are a list or tuple literal of plain elements;
- each element is an array made in memory, evaluated once when the graph is built: a call of
  `tf.constant` or of a NumPy maker (`np.load(...)`, `np.arange(n).reshape(...)`, a draw of
  `np.random`), arithmetic of those and numbers (`10 * np.random.randn(n, 4) + 1`), or a name whose
  only binding in its scope is `name = <such an expression>`, a plain statement before the batching in
  its block or an enclosing one (a module-level name: bound once in the module, at its top level,
  and declared `global` nowhere); a parameter is not one.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.rules import rule_for
from qmigrate.rules.base import Unsupported

_BATCHERS = ("tensorflow.train.batch", "tensorflow.train.shuffle_batch")
_NUMPY_MAKERS = frozenset(("array", "asarray", "arange", "zeros", "ones", "full", "empty", "linspace", "load",
                           "loadtxt", "genfromtxt", "stack", "concatenate", "vstack", "hstack", "reshape"))


@dataclass
class RowsMove:
    """`statement` batches `elements` with enqueue_many=True; `rows` names each element's row."""

    statement: cst.SimpleStatementLine
    batcher: cst.Call
    elements: cst.BaseExpression  # the list or tuple of arrays
    rows: Tuple[str, ...]
    producer: str  # the dotted name slice_input_producer is called by here


def makes_array(call: cst.Call, resolve) -> bool:
    """Whether the call makes an array in memory: `tf.constant(...)`, or a NumPy maker, also at
    the start of a chain (`np.arange(n).reshape(...)`). `resolve`: an ImportMap's."""
    while isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call):
        call = call.func.value  # `np.arange(n).reshape(...)`: the array the chain starts from
    name = resolve(call.func) or ""
    return name == "tensorflow.constant" or (
        name.startswith("numpy.") and name.count(".") == 1 and name.split(".")[1] in _NUMPY_MAKERS) or (
        # numpy's random draws: made once, in Python, when the graph is built
        name.startswith("numpy.random.") and name.count(".") == 2)


def array_expression(value: cst.BaseExpression, resolve) -> bool:
    """Whether the expression makes an array in memory: a call `makes_array` accepts, or
    arithmetic of such calls and numbers (`10 * np.random.randn(n, 4) + 1`), or its negation."""
    if isinstance(value, cst.Call):
        return makes_array(value, resolve)
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        return array_expression(value.expression, resolve)
    if isinstance(value, cst.BinaryOperation) and isinstance(
            value.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)):
        sides = (value.left, value.right)
        if not all(isinstance(side, (cst.Integer, cst.Float)) or array_expression(side, resolve) for side in sides):
            return False
        return any(not isinstance(side, (cst.Integer, cst.Float)) for side in sides)
    return False


def worth_looking(source: bytes) -> bool:
    return b"enqueue_many" in source


def find(module: cst.Module, imports: ImportMap) -> List[RowsMove]:
    """The batchings of in-memory arrays with enqueue_many=True that the contract allows."""
    uses = cstutil.name_uses(module)
    taken = set(uses.loads) | uses.stores
    moves: List[RowsMove] = []
    finder = _Finder(module, imports, taken, imports.local_name_for("tensorflow"), moves)
    finder.scan(module.body, module, [], False)
    return moves


class _Finder:
    def __init__(self, module, imports, taken, tf, moves):
        self.module, self.imports, self.taken, self.tf, self.moves = module, imports, taken, tf, moves
        # Names a function may rebind in another scope: never taken for arrays.
        self.declared_global = {name.name.value for node in cstutil.nodes_of(module, (cst.Global, cst.Nonlocal))
                                for name in node.names}

    def scan(self, body: Sequence[cst.BaseStatement], scope: cst.CSTNode, before: List[cst.BaseStatement],
             looped: bool) -> None:
        """Each statement of `body`; `before`: the statements of enclosing blocks of the scope that
        ran before this block; `looped`: whether a loop of the scope runs the block again."""
        for index, stmt in enumerate(body):
            if isinstance(stmt, cst.SimpleStatementLine):
                move = self._candidate(stmt, scope, before + list(body[:index]), looped)
                if move is not None:
                    self.moves.append(move)
            elif isinstance(stmt, cst.FunctionDef):
                if isinstance(stmt.body, cst.IndentedBlock):
                    self.scan(stmt.body.body, stmt, [], False)
            elif isinstance(stmt, cst.ClassDef):  # its methods (a class body itself batches nothing here)
                if isinstance(stmt.body, cst.IndentedBlock):
                    self.scan([s for s in stmt.body.body if isinstance(s, cst.FunctionDef)], scope, [], False)
            else:
                for block in _blocks(stmt):
                    if isinstance(block, cst.IndentedBlock):
                        self.scan(block.body, scope, before + list(body[:index]),
                                  looped or isinstance(stmt, (cst.For, cst.While)))

    def _candidate(self, stmt, scope, before, looped) -> Optional[RowsMove]:
        if len(stmt.body) != 1:
            return None
        calls = [call for call in cstutil.calls_of(stmt) if self.imports.resolve(call.func) in _BATCHERS]
        if len(calls) != 1:
            return None
        call = calls[0]
        producer = self._producer(call.func)
        if producer is None:
            return None
        many = next((arg for arg in call.args if arg.keyword is not None and arg.keyword.value == "enqueue_many"), None)
        if many is None or not (isinstance(many.value, cst.Name) and many.value.value == "True"):
            return None
        try:
            bound = rule_for(self.imports.resolve(call.func)).bind(call)
        except Unsupported:
            return None
        elements = bound.get("tensors")
        if not isinstance(elements, (cst.List, cst.Tuple)) or not elements.elements or any(
                not isinstance(element, cst.Element) for element in elements.elements):
            return None
        # `x, y = batch([x, y], ...)` rebinds the arrays' names to the batches, which is no other
        # binding of them unless a loop of the scope runs the batching again.
        batching = None if looped else stmt
        if not all(self._in_memory(element.value, scope, before, batching) for element in elements.elements):
            return None
        rows = []
        for element in elements.elements:
            base = "%s_row" % element.value.value if isinstance(element.value, cst.Name) else "row"
            name, number = base, 2
            while name in self.taken:
                name, number = "%s_%d" % (base, number), number + 1
            self.taken.add(name)
            rows.append(name)
        return RowsMove(stmt, call, elements, tuple(rows), producer)

    def _producer(self, func: cst.BaseExpression) -> Optional[str]:
        """slice_input_producer, spelled from where the batcher is (`tf.train.`, `tf.compat.v1.train.`,
        `train.`), else from the module's name for TensorFlow (None: it has none)."""
        if isinstance(func, cst.Attribute):
            return "%s.slice_input_producer" % cst.Module([]).code_for_node(func.value)
        return None if self.tf is None else "%s.train.slice_input_producer" % self.tf

    def _in_memory(self, value, scope, before, batching) -> bool:
        if not isinstance(value, cst.Name):
            return self._makes_array(value)
        if value.value in self.declared_global:
            return False
        name = value.value
        if scope is not self.module:
            if name in cstutil.param_names(scope):
                return False
            if any(name in cstutil.name_uses(stmt).stores or _defines(stmt, name) for stmt in scope_statements(scope)):
                binding = _only_binding(scope, name, batching)
                return binding is not None and _among(binding, before) and self._makes_array(
                    cstutil.single_assign(binding)[1])
        binding = _only_binding(self.module, name, batching if scope is self.module else None)
        if binding is None or not _among(binding, self.module.body):
            return False
        return (scope is not self.module or _among(binding, before)) and self._makes_array(
            cstutil.single_assign(binding)[1])

    def _makes_array(self, value) -> bool:
        return array_expression(value, self.imports.resolve)


class ArrayFinder:
    """Whether an expression is an array made in memory, as the contract says, for other
    modules: `in_memory(value, scope, before)`, `scope` the module or a function of it,
    `before` the statements of the scope that run before the one that reads `value`."""

    def __init__(self, module: cst.Module, imports: ImportMap):
        self._finder = _Finder(module, imports, set(), None, [])

    def in_memory(self, value: cst.BaseExpression, scope: cst.CSTNode, before: List[cst.BaseStatement]) -> bool:
        return self._finder._in_memory(value, scope, before, None)


def _blocks(stmt: cst.BaseStatement) -> List[cst.BaseSuite]:
    """The blocks of a compound statement, in order: if/elif/else, a loop's body and else, with,
    try and its handlers, else and finally."""
    if isinstance(stmt, cst.If):
        return cstutil.if_chain(stmt)[0]
    if isinstance(stmt, (cst.For, cst.While)):
        return [stmt.body] + ([stmt.orelse.body] if stmt.orelse is not None else [])
    if isinstance(stmt, cst.With):
        return [stmt.body]
    if isinstance(stmt, cst.Try):
        return ([stmt.body] + [handler.body for handler in stmt.handlers]
                + ([stmt.orelse.body] if stmt.orelse is not None else [])
                + ([stmt.finalbody.body] if stmt.finalbody is not None else []))
    return []


def _among(stmt: cst.CSTNode, statements: Sequence[cst.CSTNode]) -> bool:
    return any(other is stmt for other in statements)  # (nodes compare by value: identity here)


def _defines(stmt: cst.CSTNode, name: str) -> bool:
    """Whether a statement binds `name` otherwise than by a simple statement: a def or class of
    that name, or a compound statement's header."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value == name
    return isinstance(stmt, cst.BaseCompoundStatement) and name in header_stores(stmt)


def scope_statements(scope: cst.CSTNode) -> List[cst.BaseStatement]:
    """The scope's statements, nested blocks included, not those of the functions or classes it
    defines (their headers are its own: a `def` binds its name)."""
    found = []

    def add(body):
        for stmt in body:
            found.append(stmt)
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                for block in _blocks(stmt):
                    # a one-line block (`if c: x = 1`) stands as itself: what it binds is read from it
                    add(block.body if isinstance(block, cst.IndentedBlock) else [block])

    add(scope.body if isinstance(scope, cst.Module) else scope.body.body)
    return found


def _only_binding(scope: cst.CSTNode, name: str, batching: Optional[cst.SimpleStatementLine]
                  ) -> Optional[cst.SimpleStatementLine]:
    """The one statement of the scope that binds `name`, when it is `name = value` and nothing
    else binds it there (no loop target, `with ... as`, import, def, second assignment) but the
    `batching` statement (if given)."""
    binders = []
    for stmt in scope_statements(scope):
        if stmt is batching:
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            if stmt.name.value == name:
                return None
            continue
        if isinstance(stmt, cst.SimpleStatementLine):
            if name in cstutil.name_uses(stmt).stores:
                binders.append(stmt)
        elif isinstance(stmt, cst.SimpleStatementSuite):
            if name in cstutil.name_uses(stmt).stores:
                return None
        elif name in header_stores(stmt):
            return None
    if len(binders) != 1:
        return None
    assign = cstutil.single_assign(binders[0])
    if assign is None or not (isinstance(assign[0], cst.Name) and assign[0].value == name):
        return None
    return binders[0]


def header_stores(stmt: cst.BaseStatement) -> Set[str]:
    """Names a compound statement's own header binds: loop targets, `with ... as`, `except ... as`."""
    targets = []
    if isinstance(stmt, cst.For):
        targets.append(stmt.target)
    elif isinstance(stmt, cst.With):
        targets += [item.asname.name for item in stmt.items if item.asname is not None]
    elif isinstance(stmt, cst.Try):
        targets += [handler.name.name for handler in stmt.handlers if handler.name is not None]
    names = set()
    for target in targets:
        names |= {node.value for node in cstutil.nodes_of(target, (cst.Name,))}
    # An assignment expression in a test or header binds too.
    for walrus in cstutil.nodes_of(_header(stmt), (cst.NamedExpr,)):
        names |= {node.value for node in cstutil.nodes_of(walrus.target, (cst.Name,))}
    return names


def _header(stmt: cst.BaseStatement) -> cst.CSTNode:
    if isinstance(stmt, (cst.If, cst.While)):
        return stmt.test
    if isinstance(stmt, cst.For):
        return stmt.iter
    if isinstance(stmt, cst.With):
        return cst.Tuple([cst.Element(item.item) for item in stmt.items])
    return cst.Tuple([])


def sink(module: cst.Module, moves: List[RowsMove]) -> Tuple[cst.Module, List[Tuple[cst.Call, cst.Call]]]:
    """(the module with each move made, and per move the (producer, batcher) calls as they stand
    in it): the rows made by slice_input_producer(..., shuffle=False) in a statement before the
    batching, which batches them without enqueue_many."""
    sinker = _Sinker(moves)
    new = module.visit(sinker)
    return new, [sinker.made[id(move)] for move in moves]


class _Sinker(cst.CSTTransformer):
    def __init__(self, moves: List[RowsMove]):
        self.by_statement: Dict[int, RowsMove] = {id(move.statement): move for move in moves}
        self.made: Dict[int, Tuple[cst.Call, cst.Call]] = {}

    def _made(self, move: RowsMove, stmt: cst.SimpleStatementLine):
        rows = ", ".join(move.rows) + ("," if len(move.rows) == 1 else "")
        producer_stmt = cst.parse_statement("%s = %s(%s, shuffle=False)\n" % (
            rows, move.producer, cst.Module([]).code_for_node(move.elements)))
        producer = cstutil.single_assign(producer_stmt)[1]
        row_list = move.elements.with_changes(elements=[
            cst.Element(cst.Name(row), comma=element.comma) for row, element in zip(move.rows, move.elements.elements)])
        args = []
        for arg in move.batcher.args:
            if arg.keyword is not None and arg.keyword.value == "enqueue_many":
                continue
            if arg.value is move.elements:
                arg = arg.with_changes(value=row_list)
            args.append(arg)
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        batcher = move.batcher.with_changes(args=args)
        batching = stmt.deep_replace(move.batcher, batcher)
        self.made[id(move)] = (producer, batcher)
        # The statement's comments stay with the batching; the new line goes before it.
        return [producer_stmt.with_changes(leading_lines=stmt.leading_lines),
                batching.with_changes(leading_lines=())]

    def leave_Module(self, original_node, updated_node):
        return updated_node.with_changes(body=self._rewrite_original(original_node, updated_node))

    def leave_IndentedBlock(self, original_node, updated_node):
        return updated_node.with_changes(body=self._rewrite_original(original_node, updated_node))

    def _rewrite_original(self, original, updated):
        """The block's statements with the moves made: statements are matched to the originals by
        position (a move's statement holds no block, so it is unchanged by the visit)."""
        out = []
        for old, new in zip(original.body, updated.body):
            move = self.by_statement.get(id(old))
            out.extend(self._made(move, old) if move is not None else [new])
        return out
