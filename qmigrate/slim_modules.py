"""The modules a slim Dataset may be made in, read (never run) to prove what it reads and decodes.

A slim program often makes its Dataset in a module of its own (`cifar10.get_split(...)`), picked
from a module-level table (`datasets_map[name].get_split(...)`). Python finds `import name` of a
script in the script's directory, and `import pkg.name` under the root of the importer's package;
ModuleLoader looks there, and nowhere else: a module it does not find is not seen (the proof then
says so), never guessed. Each module is parsed once per loader.

ModuleView is one module as the proof reads it: its imports, its top-level functions, the value
of a module-level constant (`module_constant`) and where a node of it is, for reasons.
"""
import os
from typing import Callable, Dict, List, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from qmigrate import cstutil
from qmigrate.names import ImportMap


class ModuleView:
    """One module: `label` is None for the module being migrated, else its file name for reasons."""

    def __init__(self, module: cst.Module, imports: ImportMap, label: Optional[str] = None,
                 line_of: Optional[Callable[[cst.CSTNode], int]] = None):
        self.module, self.imports, self.label = module, imports, label
        self.functions: Dict[str, cst.FunctionDef] = {
            stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)}
        self._line_of = line_of
        self._positions = None

    def line(self, node: cst.CSTNode) -> int:
        if self._line_of is not None:
            return self._line_of(node)
        if self._positions is None:  # another module: its positions, computed once, when a reason needs one
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
        position = self._positions.get(node)
        return position.start.line if position is not None else 0

    def at(self, node: cst.CSTNode) -> str:
        """`line 12` here, `line 12 of cifar10.py` in another module."""
        return "line %d" % self.line(node) if self.label is None else "line %d of %s" % (self.line(node), self.label)

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        return self.imports.resolve(node)


_MAX_ANCESTORS = 6


class ModuleLoader:
    """Loads, by its import name, a module that `importer` (a path) imports, from the importer's
    directory or the root of its package (the directory above the last `__init__.py`); a dotted
    name also from the nearest directory above the importer that holds its whole path."""

    def __init__(self, importer: str):
        self.importer = importer
        self._loaded: Dict[str, Optional[ModuleView]] = {}

    def _roots(self) -> List[str]:
        here = os.path.dirname(os.path.abspath(self.importer))
        roots = [here]
        package = here
        while os.path.isfile(os.path.join(package, "__init__.py")):
            package = os.path.dirname(package)
        if package != here:
            roots.append(package)
        return roots

    def path_of(self, name: str) -> Optional[str]:
        relative = name.replace(".", os.sep)
        roots = self._roots()
        if "." in name:
            # A package's absolute import in a repository whose packages lack an `__init__.py`
            # (namespace packages, Bazel builds): the directory above the importer that holds the
            # whole dotted path. A name of one part is looked for where Python would, only.
            roots += self._ancestors()
        for root in roots:
            for candidate in (os.path.join(root, relative + ".py"), os.path.join(root, relative, "__init__.py")):
                if os.path.isfile(candidate):
                    return candidate
        return None

    def _ancestors(self) -> List[str]:
        """The directories above the importer's, nearest first, at most `_MAX_ANCESTORS` of them."""
        found, here = [], os.path.dirname(os.path.abspath(self.importer))
        for _ in range(_MAX_ANCESTORS):
            parent = os.path.dirname(here)
            if parent == here:
                break
            found.append(parent)
            here = parent
        return found

    def __call__(self, name: str) -> Optional[ModuleView]:
        if name not in self._loaded:
            self._loaded[name] = self._load(name)
        return self._loaded[name]

    def _load(self, name: str) -> Optional[ModuleView]:
        if name.split(".")[0] in ("tensorflow", "tf"):
            return None  # TensorFlow's own modules: what they make is known by name, not read
        path = self.path_of(name)
        if path is None:
            return None
        try:
            with open(path, "rb") as handle:
                module = cst.parse_module(handle.read())
        except (OSError, cst.ParserSyntaxError, RecursionError, UnicodeDecodeError):
            return None
        return ModuleView(module, ImportMap(module), label=os.path.basename(path))


class _Uses(cst.CSTVisitor):
    """Every Name `name` of a module, and those of them that only look up (`name[k]`, `k in name`)."""

    def __init__(self, name: str):
        self.name = name
        self.names: List[cst.Name] = []
        self.lookups = set()  # id() of the Names that are read by a subscript or an `in` test
        self.stored = set()  # id() of Subscripts that are assigned or deleted

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.names.append(node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Name) and id(node) not in self.stored:
            self.lookups.add(id(node.value))

    def _targets(self, targets) -> None:
        for target in targets:
            if isinstance(target, cst.Subscript):
                self.stored.add(id(target))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._targets(t.target for t in node.targets)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets([node.target])

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets([node.target])

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(e.value for e in node.target.elements) if isinstance(node.target, (cst.Tuple, cst.List)) \
            else self._targets([node.target])

    def visit_ComparisonTarget(self, node: cst.ComparisonTarget) -> None:
        if isinstance(node.operator, (cst.In, cst.NotIn)) and isinstance(node.comparator, cst.Name):
            self.lookups.add(id(node.comparator))


class NotConstant(Exception):
    """Why a module-level name cannot be read as the constant it is first bound to."""


def module_constant(view: ModuleView, name: str, read_at: Optional[cst.Name] = None) -> cst.BaseExpression:
    """The value of `name = value`, the module's only top-level binding of `name`, when the module
    otherwise only looks `name` up (`name[key]`, `key in name`) or reads it at `read_at` (the use
    being proved): nothing in it rebinds or changes it. Raises NotConstant saying why not. (Other
    modules changing it are not looked for.)"""
    definitions = []
    for stmt in view.module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                and small.targets[0].target.value == name:
            definitions.append(small)
    if len(definitions) != 1:
        raise NotConstant("`%s` is %s at module level" % (
            name, "not bound by a plain assignment" if not definitions else "bound more than once"))
    uses = _Uses(name)
    cstutil.walk(view.module, uses)
    target = definitions[0].targets[0].target
    for node in uses.names:
        if node is not target and node is not read_at and id(node) not in uses.lookups:
            raise NotConstant("`%s` is used otherwise than looked up (%s), so what it holds may change"
                              % (name, view.at(node)))
    return definitions[0].value
