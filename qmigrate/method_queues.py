"""Queues handed from one method to another of the same class, or from a function to a top-level
function of the module that batches: the producer moves into the callee.

A class often makes its file-name queue in one method and reads it in another it calls:

    def __init__(self, files):
        queue = tf.train.string_input_producer(files)
        self.images = self._batches(queue)
    def _batches(self, filename_queue):
        image = self._read(filename_queue)          # a reader (method) of its own
        return tf.train.batch([image], 32)

A chain split like that is not one block's. When the queue is made for that one call, it can be
made in the callee instead: the callee takes what the producer was made from (`_batches(self,
filenames)`, its first statement `filename_queue = tf.train.string_input_producer(filenames)`) and
the caller passes that (`self._batches(files)`). The callee's block then holds the whole chain.

A queue kept on `self` only for a function nested in the method that makes it is the same kind of
split:

    def inputs(self):
        def read():
            return decode(self.rows[0]), decode(self.rows[1])
        self.rows = tf.train.slice_input_producer([a, b])
        x, y = read()
        return tf.train.batch([x, y], 8)

The attribute becomes a local of the method and the nested function takes it as a parameter
(`read(rows_value)`, called `read(rows)`), so the chain is the method's block's (`ClosureQueue`).

This module only proposes these rewrites (`find`) and writes them (`sink`); the engine applies them
only where the pipeline they complete is then migrated, and otherwise analyses the file as it is.

Contract (what makes the move meaning-preserving):
- the producer is a one-target assignment `q = producer(data, ...)`, a statement of the caller's
  body itself (not in a `with`, loop or branch), and `q` is read once in the caller: as an argument
  (positional or by keyword) of `self.m(...)` in a later simple statement of that body (not in a
  loop, nor in a lambda or comprehension, which may call it again: each call would make a queue);
- `m` is a method of the class, defined once, not decorated, not defined by a related class of the
  module, and `.m` is named nowhere else in the module (this call is its only caller in the file;
  callers in other modules are found by the run, as for every helper whose signature changes, and
  then nothing moves into `m`: engine._analyse_sunk); or `m(...)` calls a top-level function of
  the module, defined once, not decorated, not the caller, named nowhere else in the module and
  calling a batching (the move completes a chain there; a function that only reads is a reader
  helper, which the engine follows as such);
- the callee neither rebinds the parameter nor has `*args` before it;
- the producer's other arguments are constants (literals, or names bound at module level and not
  in the caller), so they mean the same in the callee;
- the producer's data expression is evaluated at the call instead of at the producer: the
  statements between call nothing and name none of its names, and, when it calls anything
  itself, there are none.

For a queue kept on `self` for a nested function (ClosureQueue):
- `self.attr = producer(...)` is the attribute's only binding, a statement of the method (through
  `with`s), and nothing in the module reads `.attr` but that nested function (class_attrs);
- the nested function is a statement of the method's body itself, takes plain positional
  parameters only, and is named once in the method: in one call, made after the producer in the
  method's straight-line code (through `with`s), so it reads the attribute once it is bound.
"""
import ast
import difflib
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import blocks, class_attrs, cstutil, helpers
from qmigrate.names import ImportMap
from qmigrate.rules import BATCHERS, BUCKETERS, JOINERS, PRODUCERS, SLICERS, rule_for

_CONSTANTS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)
_REPEATING = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


@dataclass
class Sink:
    """One producer to move: made at `statement` of `caller`, passed by `arg` of `call` to `callee`,
    a method of `cls` (None: a top-level function of the module)."""

    cls: Optional[cst.ClassDef]
    caller: cst.FunctionDef
    statement: cst.SimpleStatementLine
    producer: cst.Call
    data: cst.BaseExpression  # the producer's first argument
    call: cst.Call
    arg: cst.Arg
    callee: cst.FunctionDef
    param: str  # the callee's queue parameter
    new_param: str  # the name it takes for what the producer was made from


@dataclass
class ClosureQueue:
    """`self.<attr> = producer(...)` at `statement` of `method`, read only by the nested `function`,
    called once by `call`; `local` is the attribute's name as a local of the method, `param` the
    function's new parameter."""

    method: cst.FunctionDef
    statement: cst.SimpleStatementLine
    producer: cst.Call
    loads: Set[int]  # id() of the `self.attr` nodes in the function
    function: cst.FunctionDef
    call: cst.Call
    local: str
    param: str


def worth_looking(tree: ast.Module) -> bool:
    """Whether a top-level class or function of the module (its stdlib tree) calls something named
    like a producer in an assignment: the cheap test before `find`."""
    for cls in tree.body:
        if isinstance(cls, (ast.ClassDef, ast.FunctionDef)):
            for node in ast.walk(cls):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    func = node.value.func
                    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    if name.endswith("_producer"):
                        return True
    return False


def find(module: cst.Module, imports: ImportMap, module_names: Set[str]) -> list:
    """The producers of the module whose queue can be made where it is read (Sink, ClosureQueue)."""
    return _sinks(module, imports, module_names) + _closure_queues(module, imports)


def _closure_queues(module: cst.Module, imports: ImportMap) -> List[ClosureQueue]:
    found: List[ClosureQueue] = []
    classes = None
    for cls in module.body:
        if not (isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)):
            continue
        for method in cls.body.body:
            if not isinstance(method, cst.FunctionDef) or _self_name(method) is None \
                    or not isinstance(method.body, cst.IndentedBlock):
                continue
            leaves = [leaf.original for leaf in blocks.flatten(method.body.body, method.body.body)]
            for position, stmt in enumerate(leaves):
                assign = cstutil.single_assign(stmt)
                if not (assign and isinstance(assign[0], cst.Attribute) and isinstance(assign[0].value, cst.Name)
                        and assign[0].value.value == _self_name(method) and isinstance(assign[1], cst.Call)
                        and rule_for(imports.resolve(assign[1].func)) in PRODUCERS + SLICERS):
                    continue
                if classes is None:
                    classes = class_attrs.ModuleClasses(module, lambda node: 0, set(imports.aliases))
                found += _closure_queue(classes.of(cls), method, leaves, position, assign)
    return found


def _closure_queue(attrs, method, leaves, position, assign) -> List[ClosureQueue]:
    attr = assign[0].attr.value
    try:
        binding = attrs.binding(attr)
    except class_attrs.NotProven:
        return []
    if binding.statement is not leaves[position]:
        return []
    loads = {id(use.node) for use in attrs.loads(attr) if use.method is method}
    if not loads or len(loads) != len(attrs.loads(attr)):
        return []
    readers = [f for f in method.body.body if isinstance(f, cst.FunctionDef)
               and loads <= {id(n) for n in cstutil.nodes_of(f, (cst.Attribute,))}]
    if len(readers) != 1:
        return []
    function = readers[0]
    params = function.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg \
            or params.posonly_params or any(p.default is not None for p in params.params) or function.decorators:
        return []
    name = function.name.value
    if cstutil.name_uses(method.body).loads.count(name) != 1 + _defs_named(method.body, name):
        return []
    calls = [c for leaf in leaves[position + 1:] for c in cstutil.calls_of(leaf)
             if isinstance(c.func, cst.Name) and c.func.value == name]
    if len(calls) != 1 or any(a.star or a.keyword is not None for a in calls[0].args):
        return []
    local = _fresh_name(method, attr)
    param = _fresh_name(function, attr + "_value", also=(local,))
    return [ClosureQueue(method, leaves[position], assign[1], loads, function, calls[0], local, param)]


def _defs_named(node: cst.CSTNode, name: str) -> int:
    return sum(1 for f in cstutil.nodes_of(node, (cst.FunctionDef, cst.ClassDef)) if f.name.value == name)


def _fresh_name(function: cst.FunctionDef, preferred: str, also=()) -> str:
    uses = cstutil.name_uses(function)
    taken = set(uses.loads) | set(uses.stores) | {p.name.value for p in function.params.params} | set(also)
    name, n = preferred, 2
    while name in taken:
        name, n = "%s_%d" % (preferred, n), n + 1
    return name


def _sinks(module: cst.Module, imports: ImportMap, module_names: Set[str]) -> List[Sink]:
    """The producers of the module that can be moved into the method their queue is handed to."""
    found: List[Sink] = []
    attribute_counts = None
    for cls in module.body:
        if not (isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)):
            continue
        methods: Dict[str, List[cst.FunctionDef]] = {}
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef):
                methods.setdefault(stmt.name.value, []).append(stmt)
        for caller in (m for ms in methods.values() for m in ms):
            self_name = _self_name(caller)
            if self_name is None or not isinstance(caller.body, cst.IndentedBlock):
                continue
            body = list(caller.body.body)
            for index, stmt in enumerate(body):
                sink = _candidate(cls, caller, body, index, imports, module_names,
                                  lambda stmt, queue: _method_call(stmt, queue, self_name, methods))
                if sink is None:
                    continue
                if attribute_counts is None:
                    attribute_counts = _attribute_counts(module)
                if attribute_counts.get(sink.callee.name.value, 0) != 1 or class_attrs.overridden(
                        cls, sink.callee.name.value, module):
                    continue
                found.append(sink)
    found += _function_sinks(module, imports, module_names)
    # One callee takes one moved producer.
    callees = [id(sink.callee) for sink in found]
    return [sink for sink in found if callees.count(id(sink.callee)) == 1]


def _function_sinks(module: cst.Module, imports: ImportMap, module_names: Set[str]) -> List[Sink]:
    """The producers whose queue a function or method hands to a top-level function of the module
    that batches (`images = read_batches(filename_queue, 16)`), the queue made for that one call."""
    functions: Dict[str, List[cst.FunctionDef]] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            functions.setdefault(stmt.name.value, []).append(stmt)
    if not functions:
        return []
    callers = [stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)]
    for cls in module.body:
        if isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock):
            callers += [stmt for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef)]
    found, counts = [], None
    for caller in callers:
        if not isinstance(caller.body, cst.IndentedBlock):
            continue
        body = list(caller.body.body)
        for index in range(len(body)):
            sink = _candidate(None, caller, body, index, imports, module_names,
                              lambda stmt, queue: _function_call(stmt, queue, functions, caller))
            if sink is None:
                continue
            if counts is None:
                counts = _attribute_counts(module)
            # The call is the module's one mention of the function, which batches what it reads:
            # the move completes a chain there (a function that only reads stays a reader helper).
            if counts.get(sink.callee.name.value, 0) == 1 and _batches(sink.callee, imports):
                found.append(sink)
    return found


def _batches(function: cst.FunctionDef, imports: ImportMap) -> bool:
    """Whether `function` calls a batching, joining or bucketing queue API."""
    return any(rule_for(imports.resolve(call.func)) in BATCHERS + JOINERS + BUCKETERS
               for call in cstutil.calls_of(function))


def _function_call(stmt, queue: str, functions, caller: cst.FunctionDef):
    """(call, arg, callee, 0) when the one use of `queue` in `stmt` is an argument of `f(...)`, `f`
    a top-level function of the module defined once, not decorated, not the caller itself."""
    for call in cstutil.calls_of(stmt):
        func = call.func
        if not (isinstance(func, cst.Name) and len(functions.get(func.value, ())) == 1):
            continue
        callee = functions[func.value][0]
        if callee.decorators or callee is caller:
            return None
        for arg in call.args:
            if isinstance(arg.value, cst.Name) and arg.value.value == queue and not arg.star:
                return call, arg, callee, 0
    return None


def _self_name(function: cst.FunctionDef) -> Optional[str]:
    params = function.params.params
    if function.decorators or not params:
        return None
    return params[0].name.value


def _candidate(cls, caller, body, index, imports, module_names, find_call) -> Optional[Sink]:
    """The Sink of the producer at `body[index]` of `caller`, whose one use is an argument of the
    call `find_call(statement, queue)` finds: (call, arg, callee, how many parameters come before
    the arguments, `self`'s one for a method); None when it cannot move."""
    stmt = body[index]
    assign = cstutil.single_assign(stmt)
    if assign is None or not isinstance(assign[0], cst.Name) or not isinstance(assign[1], cst.Call):
        return None
    queue, producer = assign[0].value, assign[1]
    rule = rule_for(imports.resolve(producer.func))
    if rule not in PRODUCERS + SLICERS:
        return None
    uses = cstutil.name_uses(caller.body)
    if uses.loads.count(queue) != 1:
        return None
    for later in range(index + 1, len(body)):
        if queue not in cstutil.name_uses(body[later]).loads:
            continue
        if not isinstance(body[later], cst.SimpleStatementLine) or cstutil.nodes_of(body[later], _REPEATING):
            return None  # a call in a loop (or one that may run later, or again) would make a queue a call
        found = find_call(body[later], queue)
        if found is None:
            return None
        call, arg, callee, offset = found
        param = _bound_param(callee, call, arg, offset)
        if param is None or param in cstutil.name_uses(callee.body).stores:
            return None
        data = _movable(rule, producer, caller, module_names)
        if data is None or not _same_at_call(data, body[index + 1:later]):
            return None
        return Sink(cls, caller, stmt, producer, data, call, arg, callee, param, _fresh(callee, rule))
    return None


def _method_call(stmt, queue: str, self_name: str, methods):
    """(call, arg, callee, 1) when the one use of `queue` in `stmt` is an argument of `self.m(...)`."""
    for call in cstutil.calls_of(stmt):
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value == self_name and len(methods.get(func.attr.value, ())) == 1):
            continue
        for arg in call.args:
            if isinstance(arg.value, cst.Name) and arg.value.value == queue and not arg.star:
                callee = methods[func.attr.value][0]
                return (call, arg, callee, 1) if _self_name(callee) is not None else None
    return None


def _bound_param(callee: cst.FunctionDef, call: cst.Call, arg: cst.Arg, offset: int) -> Optional[str]:
    """The callee's parameter `arg` binds (`offset`: parameters before the arguments, a `self`)."""
    params = [p.name.value for p in callee.params.params]
    if any(a.star for a in call.args):
        return None
    if arg.keyword is not None:
        name = arg.keyword.value
        return name if name in params[offset:] else None
    position = [a for a in call.args if a.keyword is None].index(arg) + offset
    return params[position] if position < len(params) else None


def _movable(rule, producer: cst.Call, caller: cst.FunctionDef, module_names: Set[str]):
    """The producer's data expression when its other arguments mean the same in any method."""
    try:
        bound = rule.bind(producer)
    except Exception:
        return None
    first = rule.signature[0]
    if first not in bound:
        return None
    local = set(cstutil.name_uses(caller).stores) | {p.name.value for p in caller.params.params}
    for name, value in bound.items():
        if name != first and not _constant(value, module_names, local):
            return None
    return bound[first]


def _constant(node: cst.BaseExpression, module_names: Set[str], local: Set[str]) -> bool:
    if isinstance(node, _CONSTANTS):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None") or (node.value in module_names and node.value not in local)
    if isinstance(node, cst.UnaryOperation):
        return _constant(node.expression, module_names, local)
    return False


def _same_at_call(data: cst.BaseExpression, between: List[cst.BaseStatement]) -> bool:
    """Whether `data` has the same value after the statements `between` as before them."""
    if not between:
        return True
    if cstutil.calls_of(data):
        return False  # a call's value may depend on what ran in between
    loads = set(cstutil.name_uses(data).loads)
    for stmt in between:
        if cstutil.calls_of(stmt):
            return False  # it may change a list the producer was made from (`files.append(f)`)
        uses = cstutil.name_uses(stmt)
        if loads & (set(uses.loads) | uses.stores | uses.mutated):
            return False
    return True


def _fresh(callee: cst.FunctionDef, rule) -> str:
    return _fresh_name(callee, "filenames" if rule.signature[0] == "string_tensor" else rule.signature[0])


class _Sinker(cst.CSTTransformer):
    def __init__(self, moves: list):
        sinks = [m for m in moves if isinstance(m, Sink)]
        closures = [m for m in moves if isinstance(m, ClosureQueue)]
        self.by_statement = {id(s.statement): s for s in sinks}
        self.by_arg = {id(s.arg): s for s in sinks}
        self.by_callee = {id(s.callee): s for s in sinks}
        self.inserted: Dict[int, cst.Call] = {}  # id(move) -> the producer call in the new module
        self.kept_on = {id(c.statement): c for c in closures}
        self.reads = {load: c for c in closures for load in c.loads}
        self.readers = {id(c.function): c for c in closures}
        self.calls = {id(c.call): c for c in closures}

    def leave_Attribute(self, original_node, updated_node):
        found = self.reads.get(id(original_node))
        return cst.Name(found.param) if found is not None else updated_node

    def leave_Call(self, original_node, updated_node):
        found = self.calls.get(id(original_node))
        if found is None:
            return updated_node
        args = list(updated_node.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated_node.with_changes(args=args + [cst.Arg(cst.Name(found.local))])

    def leave_SimpleStatementLine(self, original_node, updated_node):
        found = self.kept_on.get(id(original_node))
        if found is None:
            return updated_node
        assign = updated_node.body[0]
        self.inserted[id(found)] = assign.value
        return updated_node.with_changes(body=[assign.with_changes(targets=[cst.AssignTarget(cst.Name(found.local))])])

    def leave_Arg(self, original_node, updated_node):
        found = self.by_arg.get(id(original_node))
        if found is None:
            return updated_node
        keyword = cst.Name(found.new_param) if updated_node.keyword is not None else None
        return updated_node.with_changes(value=found.data, keyword=keyword)

    def leave_IndentedBlock(self, original_node, updated_node):
        body, changed = [], False
        carried: List[cst.EmptyLine] = []
        for original, updated in zip(original_node.body, updated_node.body):
            if id(original) in self.by_statement:
                carried = list(updated.leading_lines)  # the producer's comments stay with what follows
                changed = True
                continue
            if carried:
                updated = updated.with_changes(leading_lines=carried + list(updated.leading_lines))
                carried = []
            body.append(updated)
        if not changed:
            return updated_node
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=carried)]
        return updated_node.with_changes(body=body)

    def leave_FunctionDef(self, original_node, updated_node):
        reader = self.readers.get(id(original_node))
        if reader is not None:
            params = list(updated_node.params.params)
            if params:
                params[-1] = params[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            params.append(cst.Param(cst.Name(reader.param)))
            return updated_node.with_changes(params=updated_node.params.with_changes(params=params))
        found = self.by_callee.get(id(original_node))
        if found is None:
            return updated_node
        params = [p.with_changes(name=cst.Name(found.new_param)) if p.name.value == found.param else p
                  for p in updated_node.params.params]
        producer = cstutil.replace_node(found.producer, found.data, cst.Name(found.new_param))
        statement = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(found.param))], producer)])
        body = list(updated_node.body.body)
        first = 1 if body and cstutil.is_docstring(body[0]) else 0
        if first:
            body[:1] = helpers.redocument(body[:1], found.param, found.new_param,
                                          description="what the queue `%s` was made from." % found.param)
        body.insert(first, statement)
        self.inserted[id(found)] = producer
        return updated_node.with_changes(params=updated_node.params.with_changes(params=params),
                                         body=updated_node.body.with_changes(body=body))


def sink(module: cst.Module, sinks: list):
    """(the module with each move of `sinks` made, the producer calls as they stand in it, in the
    order of `sinks`)."""
    sinker = _Sinker(sinks)
    new = module.visit(sinker)
    return new, [sinker.inserted.get(id(s)) for s in sinks]


def _attribute_counts(module: cst.Module) -> Dict[str, int]:
    """How often each name is used as `x.name` in the module, or read as a plain name (a bare
    `name` may be a reference to the function too; the name a def statement spells is no use)."""
    counts: Dict[str, int] = {}
    for node in cstutil.nodes_of(module, (cst.Attribute,)):
        counts[node.attr.value] = counts.get(node.attr.value, 0) + 1
    for name in cstutil.name_uses(module).loads:
        counts[name] = counts.get(name, 0) + 1
    for node in cstutil.nodes_of(module, (cst.FunctionDef, cst.ClassDef)):
        counts[node.name.value] -= 1
    return counts


def line_map(old: str, new: str, moved: List[Tuple[Tuple[int, int, int], Tuple[int, int, int]]]
             ) -> Callable[[int, int], Tuple[int, int]]:
    """(line, column) in `new` → where that code stands in `old`: lines the move left alone map to
    themselves, the moved producers' to theirs. `moved`: ((line, column, end line) of a moved
    producer call in `new`, the same in `old`)."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    mapping: Dict[int, Tuple[int, int]] = {}  # new line (0-based) -> (old line, column shift)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        for j in range(j1, j2):
            mapping[j] = (i1 + j - j1, 0) if tag == "equal" else (min(i1 + j - j1, max(i2 - 1, i1)), 0)
    for (new_line, new_column, new_end), (old_line, old_column, _) in moved:
        for line in range(new_line, new_end + 1):
            mapping[line - 1] = (old_line - 1 + line - new_line, old_column - new_column)

    def where(line: int, column: int) -> Tuple[int, int]:
        old_line, shift = mapping.get(line - 1, (line - 1, 0))
        return old_line + 1, max(1, column + shift)

    return where
