"""Queue API classes named where no call of them is: the file holds a queue API's name, and
nothing was built there for a rule to see.

    def get_split(split_name, reader=None):
        if reader is None:
            reader = tf.TFRecordReader             # handed to a slim Dataset (`reader=`)
        return slim.dataset.Dataset(data_sources=..., reader=reader, decoder=..., ...)

    class PeekableQueue(tf.FIFOQueue): ...         # a queue (or reader) class of the module's own

    assert isinstance(buffer.queue, tf.RandomShuffleQueue)   # anything else: a type check, a table

`reader_arguments` finds the first kind (the class given as `reader=` or as a slim Dataset's second
positional argument, or bound to the name given, in the same function: an assignment or the
parameter's default); the engine reports them with the slim rules (engine._reader_class_arguments,
engine._kept_reader_classes, uncalled_datasets). `subclassed` finds the second, which the engine
reports, before any rewrite, as queue code of the module's own. `find` finds, once a module left
as it is has been analysed, what no occurrence or finding covers: a reader class handed to a
Dataset in a module of Dataset definitions (no provider reads it there: the providers are
reported where they are), any other name.
"""
import re
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.queue_roles import RAW_QUEUES

READER_CLASSES = ("tensorflow.TFRecordReader", "tensorflow.FixedLengthRecordReader", "tensorflow.TextLineReader",
           "tensorflow.WholeFileReader")
_SHORT = tuple(name.rsplit(".", 1)[1].encode() for name in READER_CLASSES + RAW_QUEUES)

SLIM_DATASETS = ("tensorflow.contrib.slim.dataset.Dataset", "tensorflow.contrib.slim.python.slim.data.dataset.Dataset")
DEFINITIONS = "this module makes the Dataset; the DatasetDataProviders that read it are elsewhere"
TYPE_CHECK = "a type check"


@dataclass(frozen=True)
class ReaderArgument:
    node: cst.CSTNode  # the class as written: the argument, or what its name is bound to
    name: str  # canonical
    argument: cst.CSTNode  # the `reader=` value (`node` itself, or the name bound to it)


@dataclass(frozen=True)
class Named:
    node: cst.CSTNode
    name: str  # canonical
    kind: str  # "dataset" (a reader class handed to a slim Dataset), "subclass" or "other"
    detail: str  # what the reference is, for the message ("" when nothing more)


def worth_looking(source: bytes) -> bool:
    return any(short in source for short in _SHORT)


_SUBCLASS = re.compile(rb"class\s+\w+\s*\([^)]*(Reader|Queue)\b")


def may_subclass(source: bytes) -> bool:
    """Whether some class statement may name a reader or queue class among its bases."""
    return _SUBCLASS.search(source) is not None


def _is_reader(name: Optional[str]) -> bool:
    return bool(name) and name.startswith("tensorflow.") and name.endswith("Reader")


class _ReaderArguments(cst.CSTVisitor):
    """`reader=` keyword arguments of calls that are not queue APIs (a slim Dataset's, or its
    second positional argument): a reader class handed over, not called; to a queue API
    (tf.contrib.learn's read_batch_features) its own rule reports it."""

    def __init__(self, imports: ImportMap, is_queue_api: Callable[[Optional[str]], bool]):
        self.imports = imports
        self.is_queue_api = is_queue_api
        self.found: List[ReaderArgument] = []
        self._scopes: List[Tuple[cst.CSTNode, List[cst.Name]]] = []

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes.append((node, []))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append((node, []))

    def _leave_scope(self) -> None:
        scope, names = self._scopes.pop()
        if names:
            self.found.extend(_bound_classes(scope, names, self.imports))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._leave_scope()

    def leave_Module(self, original_node: cst.Module) -> None:
        self._leave_scope()

    def visit_Call(self, node: cst.Call) -> None:
        given = [arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "reader"]
        if not given and self.imports.resolve(node.func) in SLIM_DATASETS and len(node.args) > 1 \
                and node.args[1].keyword is None and not node.args[0].star and not node.args[0].keyword:
            given = [node.args[1].value]  # Dataset(data_sources, reader, decoder, ...)
        given = [value for value in given if isinstance(value, (cst.Name, cst.Attribute))]
        if not given or self.is_queue_api(self.imports.resolve(node.func)):
            return
        for value in given:
            if isinstance(value, cst.Name) and value.value not in self.imports.imported:
                self._scopes[-1][1].append(value)  # a name of the function's (ImportMap resolves assigned ones too)
                continue
            name = self.imports.resolve(value)
            if _is_reader(name):
                self.found.append(ReaderArgument(value, name, value))


def _bound_classes(scope: cst.CSTNode, names: List[cst.Name], imports: ImportMap) -> List[ReaderArgument]:
    """The reader classes bound, in the function (or module) `scope` itself, to the names given as
    `reader=`: by an assignment (`reader = tf.TFRecordReader`) or as the parameter's default."""
    wanted = {name.value: name for name in names}
    found = []
    params = scope.params.params + scope.params.kwonly_params if isinstance(scope, cst.FunctionDef) else ()
    for param in params:
        if param.name.value in wanted and param.default is not None and _is_reader(imports.resolve(param.default)):
            found.append(ReaderArgument(param.default, imports.resolve(param.default), wanted[param.name.value]))
    for stmt in cstutil.simple_statements(scope):  # not those of nested functions or classes
        assign = cstutil.single_assign(stmt)
        if assign and isinstance(assign[0], cst.Name) and assign[0].value in wanted \
                and _is_reader(imports.resolve(assign[1])):
            found.append(ReaderArgument(assign[1], imports.resolve(assign[1]), wanted[assign[0].value]))
    return found


def reader_arguments(module: cst.Module, imports: ImportMap,
                     is_queue_api: Callable[[Optional[str]], bool]) -> List[ReaderArgument]:
    """Each TensorFlow reader class handed as `reader=` (or as a slim Dataset's second positional
    argument) to a call that is not a queue API."""
    finder = _ReaderArguments(imports, is_queue_api)
    cstutil.walk(module, finder)
    return finder.found


class _References(cst.CSTVisitor):
    """Names and attributes that resolve to a reader or raw queue class, outside imports. A plain
    name counts when an import binds it (`from tensorflow import FIFOQueue`): ImportMap also
    resolves names assigned a dotted name (`reader = tf.TFRecordReader`), whose value is the
    reference."""

    def __init__(self, imports: ImportMap):
        self.imports = imports
        self.found: List[Tuple[cst.CSTNode, str]] = []
        self.called: Set[int] = set()
        self.bases: Dict[int, str] = {}  # id(base expression) -> the class that subclasses it
        self.checks: Set[int] = set()  # the classes of isinstance / issubclass / assertIsInstance
        self._names: List[Tuple[cst.Name, str]] = []
        self._not_loads: Set[int] = set()  # attribute names, keywords, parameters

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for base in node.bases:
            self.bases[id(base.value)] = node.name.value

    def visit_Call(self, node: cst.Call) -> None:
        self.called.add(id(node.func))
        func = node.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        if name in ("isinstance", "issubclass", "assertIsInstance", "assertNotIsInstance") and len(node.args) >= 2:
            classes = node.args[1].value
            self.checks.add(id(classes))
            if isinstance(classes, cst.Tuple):
                self.checks.update(id(element.value) for element in classes.elements)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_loads.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self._not_loads.add(id(node.name))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = self.imports.resolve(node)
        if name in READER_CLASSES or name in RAW_QUEUES:
            self.found.append((node, name))
            return False
        self._not_loads.add(id(node.attr))
        return True

    def visit_Name(self, node: cst.Name) -> None:
        name = self.imports.resolve(node)
        if name in READER_CLASSES or name in RAW_QUEUES:
            self._names.append((node, name))

    def leave_Module(self, original_node: cst.Module) -> None:
        self.found.extend((node, name) for node, name in self._names
                          if node.value in self.imports.imported and id(node) not in self._not_loads)


def _references(module: cst.Module, imports: ImportMap) -> _References:
    finder = _References(imports)
    cstutil.walk(module, finder)
    return finder


def subclassed(module: cst.Module, imports: ImportMap) -> List[Named]:
    """The reader and queue classes that a class of `module` subclasses (kind "subclass", the
    detail naming the subclass)."""
    finder = _references(module, imports)
    return [Named(node, name, "subclass", finder.bases[id(node)]) for node, name in finder.found
            if id(node) in finder.bases]


def find(module: cst.Module, imports: ImportMap, covered: Set[int], readers: List[ReaderArgument],
         slim_providers: bool) -> List[Named]:
    """The reader and queue classes named but not called in `module` that no node of `covered`
    (ids of the occurrences' and findings' nodes and all they hold) accounts for, but those
    subclassed (`subclassed`, whose occurrences cover them). `readers`: reader_arguments of the
    module; `slim_providers`: whether a slim provider or parallel read of it is reported (its own
    finding then says what becomes of the classes its Datasets are given)."""
    finder = _references(module, imports)
    handed = {id(argument.node) for argument in readers}
    out = []
    for node, name in finder.found:
        if id(node) in covered or id(node) in finder.called or id(node) in finder.bases:
            continue
        if id(node) in handed:
            if not slim_providers:
                out.append(Named(node, name, "dataset", DEFINITIONS))
            continue
        out.append(Named(node, name, "other", TYPE_CHECK if id(node) in finder.checks else ""))
    return out


def covered_ids(nodes: Iterable[cst.CSTNode]) -> Set[int]:
    """The ids of `nodes` and of the names and attributes they hold."""
    out = set()
    for node in nodes:
        out.add(id(node))
        if not isinstance(node, cst.Name):
            out.update(id(inner) for inner in cstutil.nodes_of(node, (cst.Name, cst.Attribute)))
    return out
