"""Reader helpers called across modules: `records.py` defines `decode(filename_queue, size)`, which
makes a reader and reads the queue it is given; `train.py` imports it, makes the producer and
batches what it returns. Or `records.py` defines a class whose method makes the producer and
reader itself and returns the parsed record (a record-source method: `Files.example(path)`), and
`train.py` calls it on an object made from `records.Files()` (receivers.py proves its class)
and batches what it returns: then that method takes the record, and the caller's dataset is
made from what the method's producer and reader were made from.

Set-level work in three steps, on summaries and stdlib trees (never a CST):
1. `candidates`: the imports (`from records import decode [as d]`) of modules that still build
   queues, of top-level functions of the set that make a reader and no producer; and their
   imports of modules of the set (`import records`, `from pkg import records`) whose classes
   have methods that make both, named in the caller as an attribute (`.example`): each such
   method is an Import `(records.Files.example, path, Files.example)` (`method_import`); and
   the reader helpers of modules of the set it imports as a module (`import pkg.records as rec`,
   `from . import records`) that it calls as an attribute of that name: `(rec.decode, path,
   decode)` (`_attribute_imports`; recognise finds those calls by their dotted text);
2. each such caller is analysed with those helpers (engine.ForeignHelpers.imported): it says
   which ones its pipelines called with the record at every one of their calls;
3. `decide`: a helper is migrated (it takes the record) only when every module that mentions
   it is such a caller and its own module does not use it: a changed signature never meets a
   caller that still hands it a queue (or, for a method, that still expects it to read).
   A method is mentioned by its own name as an attribute anywhere (`x.example`), whatever `x`.
"""
import ast
import os
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple

from qmigrate import astindex
from qmigrate.names import canonical
from qmigrate.program import Program, relative_base
from qmigrate.rules import PRODUCERS, READERS
from qmigrate.summary import ModuleSummary

Import = Tuple[str, str, str]  # (local name in the caller, the helper's path, its name there)


def is_method(name: str) -> bool:
    """Whether an Import's name is a method's (`Class.method`), not a function's."""
    return "." in name


def method_import(module: str, name: str, path: str) -> Import:
    """The Import of the method `name` (`Class.method`) of the module the caller imports as
    `module` (its dotted name there), defined in `path`: its local name is `module.Class.method`."""
    return "%s.%s" % (module, name), path, name


def method_key(name: str) -> str:
    """The method an Import's local name (`module.Class.method`) names, as its caller's module
    context keys it: `Class.method`."""
    return ".".join(name.split(".")[-2:])


_READER_NAMES = frozenset(canonical(name) for rule in READERS for name in rule.names)
_PRODUCER_NAMES = frozenset(canonical(name) for rule in PRODUCERS for name in rule.names)


def candidates(callers: Iterable[str], summaries: Mapping[str, Optional[ModuleSummary]],
               program: Program) -> Dict[str, Tuple[Import, ...]]:
    """caller path -> the reader helpers of other modules of the set it imports by name and never
    rebinds. `callers`: the modules that still build queues after the first pass."""
    found: Dict[str, Tuple[Import, ...]] = {}
    for path in callers:
        summary = summaries.get(path)
        if summary is None:
            continue
        imports = []
        for local, target in summary.imports:
            module, _, name = target.rpartition(".")
            if not module or module.split(".")[0] == "tensorflow":
                continue
            where = program.module_path(path, module)
            helper = summaries.get(where) if where and where != path else None
            function = next((f for f in helper.functions if f.name == name), None) if helper else None
            if function is None or not _reader_only(function.builds):
                continue
            if _rebinds(program.tree(path), local) or _star_may_bind(program, path, local):
                continue
            imports.append((local, where, name))
        imports += _method_imports(path, summary, summaries, program)
        imports += _attribute_imports(path, summaries, program)
        if imports:
            found[path] = tuple(sorted(imports))
    return found


def _method_imports(path: str, summary: ModuleSummary, summaries: Mapping[str, Optional[ModuleSummary]],
                    program: Program, builds=None) -> List[Import]:
    """The record-source methods (a producer and a reader of their own; or those `builds(their
    builds)` accepts) of the classes of the modules of the set that `path` imports as modules,
    under one name it never rebinds, when `path` names them as an attribute."""
    builds = builds or _reader_and_producer
    tree = None  # parsed at the first class whose methods qualify: most callers import none
    found = []
    for local, target in summary.imports:
        if target.split(".")[0] == "tensorflow":
            continue
        where = program.module_path(path, target)
        module = summaries.get(where) if where and where != path else None
        if module is None or not module.classes:
            continue
        methods = [(cls.name, method.name) for cls in module.classes for method in cls.methods
                   if builds(method.builds)]
        if methods and tree is None:
            tree = program.tree(path)
        methods = [names for names in methods if _attribute_named(tree, names[1])]
        if not methods or _rebinds(tree, local) or _star_may_bind(program, path, local):
            continue
        found += [method_import(target, "%s.%s" % names, where) for names in methods]
    return found


def module_imports(path: str, tree: Optional[ast.AST], program: Program) -> List[Tuple[str, str]]:
    """(local name, file) of each module of the set that `path` binds to one name by an import:
    `import mod`, `import pkg.mod as m`, `from pkg import mod`, `from .pkg import mod` (`import
    pkg.mod` binds `pkg`, not the module: not one of them)."""
    found = []
    for node in astindex.nodes(tree, ast.Import, ast.ImportFrom) if tree is not None else ():
        if isinstance(node, ast.Import):
            found += [(alias.asname or alias.name, program.module_path(path, alias.name)) for alias in node.names
                      if alias.asname or "." not in alias.name]
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = relative_base(path, node.level, node.module or "")
            found += [(alias.asname or alias.name, os.path.join(base, alias.name) + ".py")
                      for alias in node.names if alias.name != "*"]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(alias.asname or alias.name, program.module_path(path, "%s.%s" % (node.module, alias.name)))
                      for alias in node.names if alias.name != "*"]
    known = set(program.paths)
    return [(local, where) for local, where in found if where in known and where != path]


def _attribute_imports(path: str, summaries: Mapping[str, Optional[ModuleSummary]],
                       program: Program) -> List[Import]:
    """The reader helpers (top-level functions that make a reader and no producer) of the modules
    of the set that `path` imports as modules under one name it never rebinds, when it names them
    as an attribute of that name (`data_utils.read(queue)`): Imports whose local name is that
    dotted text (`data_utils.read`)."""
    tree = program.tree(path)
    found = []
    for local, where in module_imports(path, tree, program):
        module = summaries.get(where)
        if module is None or _rebinds(tree, local) or _star_may_bind(program, path, local):
            continue
        spelled = _attributes_of(tree, local)
        found += [("%s.%s" % (local, function.name), where, function.name) for function in module.functions
                  if function.name in spelled and _reader_only(function.builds)]
    return found


def _attributes_of(tree: Optional[ast.AST], local: str) -> Set[str]:
    """The attributes the module reads of the name `local` (`local.attr`)."""
    return {node.attr for node in astindex.nodes(tree, ast.Attribute)
            if isinstance(node.value, ast.Name) and node.value.id == local} if tree is not None else set()


def is_attribute(local: str, name: str) -> bool:
    """Whether an Import of a function (not a method) is named in its caller as an attribute of
    the function's module (`data_utils.read`), not by an imported name."""
    return not is_method(name) and "." in local


def maker_imports(callers: Iterable[str], summaries: Mapping[str, Optional[ModuleSummary]],
                  program: Program) -> Dict[str, Tuple[Import, ...]]:
    """caller path -> the methods of classes of modules of the set it imports as modules (under
    one name it never rebinds) that make a reader and nothing else a rule knows, which it names
    as an attribute: Imports `(module.Class.method, path, Class.method)`, reader makers perhaps
    (engine.imported_reader_maker decides). A maker is not migrated: nothing is decided about it."""
    found: Dict[str, Tuple[Import, ...]] = {}
    for path in callers:
        summary = summaries.get(path)
        imports = _method_imports(path, summary, summaries, program, _reader_alone) if summary is not None else []
        if imports:
            found[path] = tuple(sorted(imports))
    return found


def _reader_alone(builds: Tuple[str, ...]) -> bool:
    return bool(builds) and all(name in _READER_NAMES for name in builds)


def _reader_and_producer(builds: Tuple[str, ...]) -> bool:
    return any(name in _READER_NAMES for name in builds) and any(name in _PRODUCER_NAMES for name in builds)


def _attribute_named(tree: Optional[ast.AST], name: str) -> bool:
    return tree is not None and any(node.attr == name for node in astindex.nodes(tree, ast.Attribute))


def _reader_only(builds: Tuple[str, ...]) -> bool:
    return any(name in _READER_NAMES for name in builds) and not any(name in _PRODUCER_NAMES for name in builds)


def _rebinds(tree: Optional[ast.AST], local: str) -> bool:
    """Whether the module binds `local` anywhere but by the import (then a call may mean another
    function); True without a tree."""
    if tree is None:
        return True
    for node in astindex.nodes(tree, ast.Name, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.arg, ast.Global,
                               ast.Nonlocal):
        if isinstance(node, ast.Name) and node.id == local and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == local:
            return True
        if isinstance(node, ast.arg) and node.arg == local:
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and local in node.names:
            return True
    imported = [alias for node in astindex.nodes(tree, ast.Import, ast.ImportFrom)
                for alias in node.names if (alias.asname or alias.name.split(".")[0]) == local]
    return len(imported) != 1


def _star_may_bind(program: Program, path: str, local: str, seen: Optional[Set[str]] = None) -> bool:
    """Whether a `from module import *` of the module may bind `local`: the star-imported module
    is outside the set, or binds the name at its top level, or star-imports a module that may."""
    seen = set() if seen is None else seen
    seen.add(path)
    tree = program.tree(path)
    for node in astindex.nodes(tree, ast.ImportFrom) if tree is not None else ():
        if not (isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)):
            continue
        where = program.module_path(path, node.module or "") if not node.level else None
        other = program.tree(where) if where else None
        if other is None or _binds_at_top(other, local):
            return True
        if where not in seen and (len(seen) > 8 or _star_may_bind(program, where, local, seen)):
            return True
    return False


def _binds_at_top(tree: ast.AST, name: str) -> bool:
    """Whether a module binds `name` by a definition, an import (star imports aside) or an
    assignment at any depth of its top-level statements."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name.split(".")[0]) == name for alias in node.names):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # their own scope
        if any(isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store)
               for sub in ast.walk(node)):
            return True
    return False


def decide(wanted: Mapping[str, Tuple[Import, ...]], used: Mapping[str, Iterable[str]], program: Program,
           changed: Mapping[str, Iterable[str]]) -> Tuple[Set[Tuple[str, str]], Dict[Tuple[str, str], str]]:
    """(the helpers (path, name) to migrate, why each other one stays).

    A helper is migrated when every module of the set that mentions it is a caller whose
    pipelines called it with the record at every call, under a name it imported it by (`used`:
    caller -> those local names), never as an attribute (`records.decode`) but of the name it
    imported the helper's module by (an attribute Import, `data_utils.decode`), and the helper's own
    module either does not use it or changed it in the first pass (`changed`: path -> helpers: its
    own pipelines migrated with it; it is then analysed again without keeping it for the callers)."""
    users: Dict[Tuple[str, str], Set[str]] = {}
    stuck: Dict[Tuple[str, str], str] = {}  # a caller's chain that does not migrate with it
    spelled_as: Dict[Tuple[str, str], Set[str]] = {}  # (caller, helper) -> its module's names there
    for caller, imports in wanted.items():
        done = set(used.get(caller, ()))
        for local, path, name in imports:
            key = (path, name)
            users.setdefault(key, set())
            if is_attribute(local, name):
                spelled_as.setdefault((caller, name), set()).add(local.rpartition(".")[0])
            if local in done:
                users[key].add(caller)
            else:
                stuck.setdefault(key, os.path.basename(caller))
    out, why = set(), {}
    for key, callers in sorted(users.items()):
        path, name = key
        own = os.path.basename(path)
        cls, _, spelled = name.rpartition(".")  # a method is mentioned by its own name
        mentions = sorted(program.references(spelled, path, method_of=cls or None))
        elsewhere = [(where, line) for where, line in mentions if where not in callers]
        attribute = None if cls else next(
            (caller for caller in sorted(callers)
             if _as_attribute(program.tree(caller), name, spelled_as.get((caller, name), set()))), None)
        if key in stuck:
            lines = [line for where, line in mentions if os.path.basename(where) == stuck[key]]
            why[key] = "its call in %s%s stays as it is, %s" % (
                stuck[key], " (line %d)" % lines[-1] if lines else "",
                "expecting it to read records itself" if cls else "handing it a queue")
        elif name not in set(changed.get(path, ())) and _used_in_own_module(program.tree(path), spelled):
            why[key] = "%s() is used in %s itself" % (name, own)
        elif elsewhere:
            why[key] = "%s mentions it in code that stays as it is" % ", ".join(
                "%s:%d" % (os.path.basename(where), line) for where, line in elsewhere[:3])
        elif attribute is not None:
            why[key] = ("%s reaches it as an attribute of its module, which qmigrate does not follow"
                        % os.path.basename(attribute))
        else:
            out.add(key)
            continue
        why[key] = ("%s() of %s is a %s that other modules call, and it changes only together with every "
                    "caller: %s" % (name, own, "reading method" if cls else "reader helper", why[key]))
    return out, why




def _as_attribute(tree: Optional[ast.AST], name: str, modules: Set[str] = frozenset()) -> bool:
    """Whether the module names `name` as an attribute of something else than the names
    `modules` it imported the helper's module under (an attribute Import follows those)."""
    return tree is None or any(node.attr == name and not (
        isinstance(node.value, ast.Name) and node.value.id in modules) for node in astindex.nodes(tree, ast.Attribute))


def _used_in_own_module(tree: Optional[ast.AST], name: str) -> bool:
    """Whether the defining module reads the name (a call, a reference, `__all__` aside)."""
    if tree is None:
        return True
    return any(node.id == name for node in astindex.nodes(tree, ast.Name)) or any(
        node.attr == name for node in astindex.nodes(tree, ast.Attribute))


class Jobs:
    """What each module's next analysis is given (engine.ForeignHelpers, as picklable tuples)."""

    def __init__(self, wanted: Mapping[str, Tuple[Import, ...]], used: Mapping[str, Iterable[str]],
                 migrated: Set[Tuple[str, str]], why: Mapping[Tuple[str, str], str]):
        self.imported: Dict[str, Tuple[Import, ...]] = {}
        self.refused: Dict[str, List[Tuple[str, str]]] = {}
        self.migrate: Dict[str, Tuple[str, ...]] = {}
        for caller, imports in wanted.items():
            done = set(used.get(caller, ()))
            decided = migrated | set(why)
            taken = tuple(entry for entry in imports if entry[0] in done and (entry[1], entry[2]) in decided)
            if taken:
                self.imported[caller] = taken
            self.refused[caller] = [(entry[0], why[(entry[1], entry[2])]) for entry in taken
                                    if (entry[1], entry[2]) in why]
        for (path, name), reason in why.items():
            self.refused.setdefault(path, []).append((name, reason))
        for path, name in sorted(migrated):
            self.migrate[path] = self.migrate.get(path, ()) + (name,)

    def held(self, again: Mapping[str, object]) -> bool:
        """Whether the modules analysed again (`again`: path -> its _Done, when analysed) did what
        the probes promised: each caller migrated every call of its migrated helpers, and each
        helper module changed them."""
        for caller, imports in self.imported.items():
            refused = {local for local, _ in self.refused.get(caller, ())}
            wanted = {entry[0] for entry in imports} - refused
            done = again.get(caller)
            if wanted and (done is None or not wanted <= set(done.imported_used)):
                return False
        for path, names in self.migrate.items():
            done = again.get(path)
            if done is None or not set(names) <= set(done.changed_helpers):
                return False
        return True

    def paths(self) -> List[str]:
        """The modules to analyse again."""
        return sorted(set(self.imported) | set(self.migrate) | {path for path, found in self.refused.items() if found})

    def of(self, path: str) -> dict:
        """The _Job fields of one module."""
        return dict(imported=self.imported.get(path, ()), migrate=self.migrate.get(path, ()),
                    refused=tuple(sorted(self.refused.get(path, ()))))
