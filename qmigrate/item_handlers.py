"""Whether an ItemHandler class of the program's own can decode inside Dataset.map.

slim's provider called `decoder.decode(record, items)` once, when the graph was built, on the
record its common queue dequeued; the migration calls it once too, when Dataset.map traces its
function, on the record the dataset gives. Python side effects happen once either way; what
differs is the graph the handler's ops go into: the map function's. So a handler is safe when
its decoding only builds ops from the tensors it is given. It is not when it
  - makes what a one-shot iterator cannot capture (variables, lookup tables, queues, placeholders),
  - reaches the graph itself (collections, summaries, the default graph), which in the map
    function is another graph,
  - builds ops in its constructor (the map function would capture them from the outer graph),
  - keeps state across calls (stores attributes outside `__init__`, `global`), or
  - runs code qmigrate cannot see (functions of other modules, names the module does not bind,
    `tf.py_func`, whose Python runs in the input pipeline's thread).

`check_handler_class` proves it for a class defined at the top level of a module whose only base
is slim's ItemHandler, every method read; it raises Unsupported naming the first thing that
breaks the proof.
"""
import builtins
import re
from typing import Optional, Set

import libcst as cst

from qmigrate import cstutil
from qmigrate.rules.base import Unsupported
from qmigrate.slim_modules import ModuleView

ITEM_HANDLER = "tensorflow.contrib.slim.tfexample_decoder.ItemHandler"
_SLIM_DATA = "tensorflow.contrib.slim.python.slim.data."
# TensorFlow APIs a handler's decoding must not call (see the module's docstring).
_UNSAFE_TF = re.compile(r"Variable|variable|lookup|[Tt]able|summary|collection|default_graph|placeholder|Queue|"
                        r"queue|^tensorflow\.train\.|assign|Session|py_func|py_function|numpy_function|"
                        r"^tensorflow\.contrib\.framework\.")
# Builtins that only compute on their arguments.
_PURE_BUILTINS = frozenset((
    "len", "range", "list", "tuple", "dict", "set", "int", "float", "str", "bool", "isinstance", "zip",
    "enumerate", "min", "max", "sorted", "abs", "any", "all", "reversed", "ValueError", "TypeError",
    "KeyError", "NotImplementedError", "super"))


# Methods of the values a handler holds (tensors, shapes, dicts, strings) that only compute.
_VALUE_METHODS = frozenset(("set_shape", "get_shape", "as_list", "get", "items", "keys", "values", "format",
                            "startswith", "endswith", "join", "split", "append"))


def _head(node: cst.BaseExpression) -> str:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def _canonical(name: Optional[str]) -> Optional[str]:
    if name and name.startswith(_SLIM_DATA):
        return "tensorflow.contrib.slim." + name[len(_SLIM_DATA):]
    return name


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def handler_class(where: ModuleView, call: cst.Call) -> Optional[cst.ClassDef]:
    """The top-level class of `where` a handler call `Name(...)` makes, if it is one."""
    if not isinstance(call.func, cst.Name) or call.func.value in where.imports.aliases:
        return None
    name = call.func.value
    found = [stmt for stmt in where.module.body if isinstance(stmt, cst.ClassDef) and stmt.name.value == name]
    bound_otherwise = [stmt for stmt in where.module.body if not isinstance(stmt, cst.ClassDef) and (
        stmt.name.value == name if isinstance(stmt, cst.FunctionDef) else name in cstutil.name_uses(stmt).stores)]
    return found[0] if len(found) == 1 and not bound_otherwise else None


class _MethodBody(cst.CSTVisitor):
    """Reads one method: its calls, attribute stores and `global`/`nonlocal` statements."""

    def __init__(self, checker: "_Checker", method: cst.FunctionDef):
        self.checker, self.method = checker, method
        self.local_functions: Set[str] = {node.name.value for node in _nested_defs(method)}
        self.problem: Optional[str] = None

    def _fail(self, text: str) -> None:
        if self.problem is None:
            self.problem = text

    def visit_Global(self, node) -> None:
        self._fail("%s() declares a global name" % self.method.name.value)

    visit_Nonlocal = visit_Global

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target)

    def _store(self, target) -> None:
        if isinstance(target, (cst.Attribute, cst.Subscript)) and self.method.name.value != "__init__":
            self._fail("%s() stores `%s`, state kept across calls" % (self.method.name.value, _code(target)))

    def visit_Call(self, node: cst.Call) -> None:
        reason = self.checker.call_problem(node, self.method, self.local_functions)
        if reason:
            self._fail(reason)


def _nested_defs(method: cst.FunctionDef):
    found = []

    class _Defs(cst.CSTVisitor):
        def visit_FunctionDef(self, node) -> None:
            if node is not method:
                found.append(node)

    cstutil.walk(method, _Defs())
    return found


class _Checker:
    def __init__(self, where: ModuleView, cls: cst.ClassDef):
        self.where, self.cls = where, cls
        self.methods = {stmt.name.value for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef)} \
            if isinstance(cls.body, cst.IndentedBlock) else set()

    def call_problem(self, call: cst.Call, method: cst.FunctionDef, local_functions: Set[str]) -> Optional[str]:
        """Why `call` in `method` breaks the proof, or None."""
        func, in_init = call.func, method.name.value == "__init__"
        shown = "`%s(...)` in %s.%s()" % (_code(func), self.cls.name.value, method.name.value)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return None if func.attr.value in self.methods else (
                "%s calls a method the class does not define" % shown)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) and isinstance(
                func.value.func, cst.Name) and func.value.func.value == "super":
            return None if in_init and func.attr.value == "__init__" else "%s calls the base class" % shown
        if isinstance(func, cst.Name) and (func.value in local_functions or func.value in _PURE_BUILTINS
                                           and func.value not in self.where.imports.aliases):
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, (cst.Name, cst.Subscript)) and \
                _head(func.value) not in self.where.imports.aliases and func.attr.value in _VALUE_METHODS:
            return None  # a method of a tensor, shape, dict or string the handler holds
        if isinstance(func, cst.Lambda) or (isinstance(func, cst.Name) and func.value in cstutil.param_names(method)):
            return "%s calls a function it is given, which qmigrate cannot see" % shown
        resolved = _canonical(self.where.resolve(func))
        if resolved is None:
            head = func
            while isinstance(head, cst.Attribute):
                head = head.value
            unbound = isinstance(head, cst.Name) and head.value not in self.where.imports.aliases and not hasattr(
                builtins, head.value)
            if unbound and head is not func and never_bound(self.where.module, head.value):
                return None  # `x.f(...)` raises NameError before it does anything, wherever it runs
            return "%s runs code qmigrate cannot see%s" % (
                shown, " (`%s` is not bound in the module)" % head.value if unbound else "")
        if not resolved.startswith("tensorflow."):
            return "%s runs code of `%s`, which qmigrate does not read" % (shown, resolved.rsplit(".", 1)[0])
        if re.search(r"py_func|py_function|numpy_function", resolved):
            return "%s runs Python on each record, which qmigrate does not move into a map function" % shown
        if _UNSAFE_TF.search(resolved):
            return "%s makes or reaches what a map function cannot hold (variables, tables, queues, the graph's " \
                   "collections or summaries)" % shown
        if in_init:
            return "%s builds ops in the constructor, outside the map function that would use them" % shown
        return None

    def check(self) -> None:
        cls = self.cls
        bases = [_canonical(self.where.resolve(arg.value)) for arg in cls.bases]
        if bases != [ITEM_HANDLER] or cls.keywords or cls.decorators:
            raise Unsupported("the item handler class %s (%s) does not derive from slim's ItemHandler alone"
                              % (cls.name.value, self.where.at(cls)))
        if not isinstance(cls.body, cst.IndentedBlock):
            raise Unsupported("the item handler class %s (%s) has no body qmigrate reads" % (
                cls.name.value, self.where.at(cls)))
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef):
                if stmt.decorators:
                    raise Unsupported("the item handler class %s has the decorated method %s() (%s)"
                                      % (cls.name.value, stmt.name.value, self.where.at(stmt)))
                body = _MethodBody(self, stmt)
                cstutil.walk(stmt, body)
                if body.problem:
                    raise Unsupported("its item handler class %s (%s): %s" % (
                        cls.name.value, self.where.at(stmt), body.problem))
            elif not _docstring_or_pass(stmt):
                raise Unsupported("the item handler class %s has a class-level statement (%s) qmigrate does "
                                  "not read" % (cls.name.value, self.where.at(stmt)))
        if "tensors_to_item" not in self.methods:
            raise Unsupported("the item handler class %s (%s) defines no tensors_to_item()" % (
                cls.name.value, self.where.at(cls)))


# Names through which a module can bind a global without spelling it as a Name.
_DYNAMIC_BINDERS = frozenset(("globals", "vars", "exec", "eval", "setattr", "__dict__", "__builtins__", "locals"))


def never_bound(module: cst.Module, name: str) -> bool:
    """Whether `name` is never bound in `module`, so that reading it raises NameError: the module
    has no `import *` and names nothing that binds globals dynamically, the name is no builtin,
    and every Name node spelled `name` is the head of an attribute chain (`name.f`): no
    assignment, import, parameter, def, class, global statement, keyword or attribute spells it."""
    if hasattr(builtins, name) or cstutil.nodes_of(module, cst.ImportStar):
        return False
    heads = {id(node.value) for node in cstutil.nodes_of(module, cst.Attribute)}
    for node in cstutil.nodes_of(module, cst.Name):
        if node.value in _DYNAMIC_BINDERS or node.value == name and id(node) not in heads:
            return False
    return True


def _docstring_or_pass(stmt: cst.BaseStatement) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        return isinstance(small, cst.Pass) or (isinstance(small, cst.Expr) and isinstance(
            small.value, (cst.SimpleString, cst.ConcatenatedString)))
    return False


def check_handler_class(where: ModuleView, cls: cst.ClassDef) -> None:
    """Returns when `cls` (of `where`) decodes with graph ops on the tensors it is given only;
    raises Unsupported saying what stands in the way."""
    _Checker(where, cls).check()
