"""A slim Dataset that only its migrated provider read goes with it.

    decoder = slim.tfexample_decoder.TFExampleDecoder(keys, handlers)
    dataset = slim.dataset.Dataset(data_sources=files, reader=tf.TFRecordReader,
                                   decoder=decoder, num_samples=n, items_to_descriptions={})
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, ...)

The provider's rewrite reads `dataset.data_sources` and decodes with `dataset.decoder`. When
nothing else in the function reads `dataset`, the Dataset is left holding a queue reader class
(`reader=`) for no one. `remove` writes the two values straight in (`files`, `decoder`) and drops
the Dataset's statement, so the migrated function reads as if a person had written it for tf.data.
A local that was made only for the Dataset (`items_to_descriptions = {...}`, read nowhere else)
goes with it.

Contract: it applies only in a top-level function or a method that held a DatasetDataProvider of
that Dataset before the rewrite, and only where the result means the same:
- the Dataset's name is bound once, by `name = Dataset(...)` on a line of its own, and read after
  the rewrite only as `name.decoder` and `name.data_sources`;
- every argument of the Dataset is a name, an attribute of names, a literal or a container of
  those: a call could have effects that removing the statement would lose;
- `data_sources` and `decoder` are each a string literal, or a parameter or local of the function
  bound once (so every later read gives the very object the Dataset stored), which nothing nested
  in the function (a function, lambda, class or comprehension) binds again.
Slim's Dataset only stores its arguments, so removing it removes no effect. Comments above the
statement go with it, except those a blank line parts from it (a section's heading), which move
to the next one.
"""
from collections import Counter
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.slim_provider import DATASET, slim_name

PROVIDER = "tensorflow.contrib.slim.dataset_data_provider.DatasetDataProvider"
_POSITIONS = ("data_sources", "reader", "decoder", "num_samples", "items_to_descriptions")
_READ = ("data_sources", "decoder")


def remove(old: cst.Module, new: cst.Module, imports: ImportMap, source: bytes) -> Tuple[cst.Module, Set[int]]:
    """`new` without the slim Datasets only migrated providers read (see the module's contract),
    and the ids of the argument values of those Datasets' calls in `old`."""
    if b"DatasetDataProvider" not in source:
        return new, set()
    old_functions, dropped, replaced = functions_by_path(old), set(), {}
    for path, function in functions_by_path(new).items():
        before = old_functions.get(path)
        if before is None:
            continue
        edited, tried = function, set()
        while True:  # one Dataset at a time, each looked for again in the function as edited
            removal = _removal(edited, before, imports, tried)
            if removal is None:
                break
            edited, old_call = removal
            dropped.update(id(arg.value) for arg in old_call.args)
        if edited is not function:
            replaced[id(function)] = edited
    if not replaced:
        return new, set()
    return new.visit(Swap(replaced)), dropped


def _removal(function: cst.FunctionDef, before: cst.FunctionDef, imports: ImportMap,
             tried: Set[str]) -> Optional[Tuple[cst.FunctionDef, cst.Call]]:
    """The function without the first Dataset not in `tried` that can go, and that Dataset's call
    before the rewrite; None when none can. Each Dataset looked at goes into `tried`."""
    for name, statement, call in _datasets(function, imports):
        if name in tried:
            continue
        tried.add(name)
        old_call = _provided_dataset(before, name, imports)
        values = _values(call)
        if old_call is None or values is None or not _only_read(function, name, statement):
            continue
        bindings = cstutil.Bindings()
        cstutil.walk(function, bindings)
        if not all(_stable(bindings, values[attr]) for attr in _READ):
            continue
        without = drop_line(function, statement)
        if without is not None:
            return _drop_unread(_inline(without, name, values), values), old_call
    return None


def functions_by_path(module: cst.Module) -> Dict[Tuple[str, ...], cst.FunctionDef]:
    """Top-level functions by (name,) and methods of top-level classes by (class, name); a path
    defined twice is left out."""
    found: Dict[Tuple[str, ...], List[cst.FunctionDef]] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            found.setdefault((stmt.name.value,), []).append(stmt)
        elif isinstance(stmt, cst.ClassDef):
            for inner in stmt.body.body:
                if isinstance(inner, cst.FunctionDef):
                    found.setdefault((stmt.name.value, inner.name.value), []).append(inner)
    return {path: defs[0] for path, defs in found.items() if len(defs) == 1}


class _OwnStatements(cst.CSTVisitor):
    """The simple statement lines of a function's own body (not of functions or classes in it),
    and those of them inside a loop."""

    def __init__(self):
        self.lines: List[cst.SimpleStatementLine] = []
        self.looped: Set[int] = set()
        self.loops = 0

    def visit_FunctionDef(self, node) -> bool:
        return False

    visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_For(self, node) -> None:
        self.loops += 1

    def leave_For(self, node) -> None:
        self.loops -= 1

    visit_While, leave_While = visit_For, leave_For

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self.lines.append(node)
        if self.loops:
            self.looped.add(id(node))
        return False


def own_lines(function: cst.FunctionDef, outside_loops: bool = False) -> List[cst.SimpleStatementLine]:
    visitor = _OwnStatements()
    function.body.visit(visitor)
    return [line for line in visitor.lines if not (outside_loops and id(line) in visitor.looped)]


def assigned_value(line: cst.SimpleStatementLine) -> Optional[Tuple[str, cst.BaseExpression]]:
    """(name, value) of a line that is only `name = value`."""
    if len(line.body) != 1 or not isinstance(line.body[0], cst.Assign):
        return None
    assign = line.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return assign.targets[0].target.value, assign.value


def assigned_call(line: cst.SimpleStatementLine) -> Optional[Tuple[str, cst.Call]]:
    """(name, call) of a line that is only `name = call(...)`."""
    assigned = assigned_value(line)
    return assigned if assigned is not None and isinstance(assigned[1], cst.Call) else None


def _datasets(function: cst.FunctionDef, imports: ImportMap) -> List[Tuple[str, cst.SimpleStatementLine, cst.Call]]:
    """(name, line, call) of each `name = slim.dataset.Dataset(...)` line of the function's own,
    outside loops (a Dataset made again in each pass could be read before the next is made)."""
    found = []
    for line in own_lines(function, outside_loops=True):
        assigned = assigned_call(line)
        if assigned is not None and slim_name(imports.resolve(assigned[1].func)) == DATASET:
            found.append((assigned[0], line, assigned[1]))
    return found


def _provided_dataset(function: cst.FunctionDef, name: str, imports: ImportMap) -> Optional[cst.Call]:
    """The call of `name = Dataset(...)` in the function before the rewrite, when a
    DatasetDataProvider of the function reads `name`."""
    made = [call for n, _, call in _datasets(function, imports) if n == name]
    if len(made) != 1:
        return None
    for line in own_lines(function):
        for node in cstutil.calls_of(line):
            if slim_name(imports.resolve(node.func)) != PROVIDER:
                continue
            for position, arg in enumerate(node.args):
                keyword = arg.keyword.value if arg.keyword is not None else None
                if (keyword == "dataset" or (keyword is None and position == 0 and not arg.star)) \
                        and isinstance(arg.value, cst.Name) and arg.value.value == name:
                    return made[0]
    return None


def _values(call: cst.Call) -> Optional[Dict[str, cst.BaseExpression]]:
    """The Dataset's arguments by parameter, when each is plain (see `_plain`) and both
    `data_sources` and `decoder` are given; otherwise None."""
    values: Dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star or not plain(arg.value):
            return None
        if arg.keyword is not None:
            values[arg.keyword.value] = arg.value
        elif position < len(_POSITIONS):
            values[_POSITIONS[position]] = arg.value
        else:
            return None
    return values if all(attr in values for attr in _READ) else None


def plain(node: cst.BaseExpression) -> bool:
    """A name, an attribute of names, a literal, or a container or subscript of those: evaluating
    it calls nothing of the program's."""
    if isinstance(node, (cst.Name, cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(node, cst.Attribute):
        return plain(node.value)
    if isinstance(node, cst.ConcatenatedString):
        return plain(node.left) and plain(node.right)
    if isinstance(node, cst.UnaryOperation):
        return plain(node.expression)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(isinstance(e, cst.Element) and plain(e.value) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and plain(e.key) and plain(e.value) for e in node.elements)
    if isinstance(node, cst.Subscript):
        return plain(node.value) and all(
            isinstance(e.slice, cst.Index) and plain(e.slice.value) for e in node.slice)
    return False


class _NameReads(cst.CSTVisitor):
    """Whether `name` occurs only as the binding of one line and as `name.decoder` or
    `name.data_sources` reads (attribute names and keywords are not occurrences)."""

    def __init__(self, name: str, binding: cst.Name):
        self.name, self.allowed, self.reads, self.other = name, {id(binding)}, 0, False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.allowed.add(id(node.attr))
        if isinstance(node.value, cst.Name) and node.value.value == self.name and node.attr.value in _READ:
            self.allowed.add(id(node.value))
            self.reads += 1

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.allowed.add(id(node.keyword))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._stored(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._stored(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._stored(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._stored(node.target)

    def _stored(self, target: cst.BaseExpression) -> None:
        # `name.decoder = ...` changes what the Dataset holds: not a read.
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and target.value.value == self.name:
            self.other = True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.allowed:
            self.other = True


def _only_read(function: cst.FunctionDef, name: str, line: cst.SimpleStatementLine) -> bool:
    visitor = _NameReads(name, line.body[0].targets[0].target)
    function.visit(visitor)
    return visitor.reads > 0 and not visitor.other


def _stable(bindings: cstutil.Bindings, value: cst.BaseExpression) -> bool:
    """Whether `value`, read anywhere in the function (whose `bindings` these are) after the
    Dataset's line, is what the Dataset stored (see the module's contract)."""
    if isinstance(value, cst.SimpleString):
        return True
    if not isinstance(value, cst.Name):
        return False
    name = value.value
    return bindings.own.get(name, 0) == 1 and name not in bindings.nested and name not in bindings.declared


def _section_comments(lines) -> list:
    """The comment lines above a statement that a blank line parts from it: those that head a
    section rather than describe the statement (which go with it)."""
    blanks = [index for index, line in enumerate(lines) if line.comment is None]
    if not blanks:
        return []
    kept = list(lines[:blanks[-1]])
    return kept if any(line.comment is not None for line in kept) else []


class _DropLine(cst.CSTTransformer):
    """Removes one line from its block; the comments above it that head a section go to the line
    after it, those right above it go with it. A blank line that parted it from the code above
    goes to the line after it, where none parts that from it (the paragraphs stay parted), unless
    it was the block's first line (a block does not start with a blank line)."""

    def __init__(self, line: cst.SimpleStatementLine):
        self.line, self.done = line, False

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock):
        if not any(stmt is self.line for stmt in original_node.body):
            return updated_node
        body, carried, parted = [], [], False
        for old, stmt in zip(original_node.body, updated_node.body):
            if old is self.line:
                carried = _section_comments(stmt.leading_lines)
                parted = bool(body) and any(line.comment is None for line in stmt.leading_lines)
                continue
            if carried:
                stmt = stmt.with_changes(leading_lines=list(stmt.leading_lines) + carried)
                carried = []
            if parted:
                if not stmt.leading_lines or stmt.leading_lines[0].comment is not None:
                    stmt = stmt.with_changes(leading_lines=[cst.EmptyLine(indent=False)] + list(stmt.leading_lines))
                parted = False
            body.append(stmt)
        if carried or not body:
            return updated_node  # nothing after it to carry its comments, or a block left empty
        self.done = True
        return updated_node.with_changes(body=body)


def drop_line(function: cst.FunctionDef, line: cst.SimpleStatementLine) -> Optional[cst.FunctionDef]:
    """The function without `line`, or None where it cannot go (see _DropLine)."""
    dropper = _DropLine(line)
    without = function.visit(dropper)
    return without if dropper.done else None


class _Occurrences(cst.CSTVisitor):
    """How often each name occurs (attribute names and keywords are not occurrences), in one walk."""

    def __init__(self):
        self.counts, self.skip = Counter(), set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.skip:
            self.counts[node.value] += 1


def name_counts(node: cst.CSTNode) -> Counter:
    """How often each name occurs in `node` (see _Occurrences)."""
    visitor = _Occurrences()
    cstutil.walk(node, visitor)
    return visitor.counts


def occurrences(node: cst.CSTNode, name: str) -> int:
    """How often `name` occurs in `node`."""
    return name_counts(node)[name]


def _drop_unread(function: cst.FunctionDef, values: Dict[str, cst.BaseExpression]) -> cst.FunctionDef:
    """The function without the lines `name = <plain value>` of the Dataset's other arguments
    that nothing reads any more."""
    for param, value in values.items():
        if param in _READ or not isinstance(value, cst.Name):
            continue
        if occurrences(function, value.value) != 1:
            continue
        for line in own_lines(function):
            assigned = assigned_value(line)
            if assigned is not None and assigned[0] == value.value and plain(assigned[1]):
                function = drop_line(function, line) or function
                break
    return function


class _Inline(cst.CSTTransformer):
    def __init__(self, name: str, values: Dict[str, cst.BaseExpression]):
        self.name, self.values = name, values

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute):
        if isinstance(original_node.value, cst.Name) and original_node.value.value == self.name \
                and original_node.attr.value in _READ:
            return self.values[original_node.attr.value].deep_clone()
        return updated_node


def _inline(function: cst.FunctionDef, name: str, values: Dict[str, cst.BaseExpression]) -> cst.FunctionDef:
    return function.visit(_Inline(name, values))


class Swap(cst.CSTTransformer):
    """Puts edited functions in place of the module's (by the identity of the originals)."""

    def __init__(self, replaced: Dict[int, cst.FunctionDef]):
        self.replaced = replaced

    def visit_FunctionDef(self, node) -> bool:
        return False

    def leave_FunctionDef(self, original_node, updated_node):
        return self.replaced.get(id(original_node), updated_node)
