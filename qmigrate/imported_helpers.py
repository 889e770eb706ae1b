"""Reader helpers called across modules: `records.py` defines `decode(filename_queue, size)`, which
makes a reader and reads the queue it is given; `train.py` imports it, makes the producer and
batches what it returns.

Set-level work in three steps, on summaries and stdlib trees (never a CST):
1. `candidates`: the imports (`from records import decode [as d]`) of modules that still build
   queues, of top-level functions of the set that make a reader and no producer;
2. each such caller is analysed with those helpers (engine.ForeignHelpers.imported): it says
   which ones its pipelines called with the record at every one of their calls;
3. `accepted`: a helper is migrated (it takes the record) only when every module that mentions
   it is such a caller and its own module does not use it: a changed signature never meets a
   caller that still hands it a queue.
"""
import ast
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple

from qmigrate.names import canonical
from qmigrate.program import Program
from qmigrate.rules import PRODUCERS, READERS
from qmigrate.summary import ModuleSummary

Import = Tuple[str, str, str]  # (local name in the caller, the helper's path, its name there)

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
        if imports:
            found[path] = tuple(sorted(imports))
    return found


def _reader_only(builds: Tuple[str, ...]) -> bool:
    return any(name in _READER_NAMES for name in builds) and not any(name in _PRODUCER_NAMES for name in builds)


def _rebinds(tree: Optional[ast.AST], local: str) -> bool:
    """Whether the module binds `local` anywhere but by the import (then a call may mean another
    function); True without a tree."""
    if tree is None:
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == local and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == local:
            return True
        if isinstance(node, ast.arg) and node.arg == local:
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and local in node.names:
            return True
    imported = [alias for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names if (alias.asname or alias.name.split(".")[0]) == local]
    return len(imported) != 1


def _star_may_bind(program: Program, path: str, local: str) -> bool:
    """Whether a `from module import *` of the module may bind `local`: the star-imported module
    is outside the set, or binds the name at its top level, or star-imports in turn."""
    tree = program.tree(path)
    for node in ast.walk(tree) if tree is not None else ():
        if not (isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)):
            continue
        where = program.module_path(path, node.module or "") if not node.level else None
        other = program.tree(where) if where else None
        if other is None or _binds_at_top(other, local):
            return True
    return False


def _binds_at_top(tree: ast.AST, name: str) -> bool:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                alias.name == "*" or (alias.asname or alias.name.split(".")[0]) == name for alias in node.names):
            return True
        if any(isinstance(target, ast.Name) and target.id == name
               for sub in ast.walk(node) if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For,
                                                            ast.With))
               for target in ast.walk(sub) if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)):
            return True
    return False


def accepted(wanted: Mapping[str, Tuple[Import, ...]], used: Mapping[str, Iterable[str]], program: Program,
             changed: Mapping[str, Iterable[str]]) -> Set[Tuple[str, str]]:
    """The helpers (path, name) to migrate: every module of the set that mentions one is a caller
    whose pipelines called it with the record at every call, under a name it imported it by
    (`used`: caller -> those local names), never as an attribute (`records.decode`); the helper's
    own module neither uses it nor changed it in the first pass (`changed`: path -> helpers)."""
    users: Dict[Tuple[str, str], Set[str]] = {}
    refused: Set[Tuple[str, str]] = set()
    for caller, imports in wanted.items():
        done = set(used.get(caller, ()))
        for local, path, name in imports:
            key = (path, name)
            if local in done:
                users.setdefault(key, set()).add(caller)
            else:
                refused.add(key)  # one of its imports of the helper is not migrated at every call
    out = set()
    for (path, name), callers in users.items():
        if (path, name) in refused or name in set(changed.get(path, ())):
            continue
        mentions = {where for where, _ in program.references(name, path)}
        if not mentions <= callers:
            continue
        if any(_as_attribute(program.tree(caller), name) for caller in callers):
            continue
        if _used_in_own_module(program.tree(path), name):
            continue
        out.add((path, name))
    return out


def _as_attribute(tree: Optional[ast.AST], name: str) -> bool:
    return tree is None or any(isinstance(node, ast.Attribute) and node.attr == name for node in ast.walk(tree))


def _used_in_own_module(tree: Optional[ast.AST], name: str) -> bool:
    """Whether the defining module reads the name (a call, a reference, `__all__` aside)."""
    if tree is None:
        return True
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(tree)) or any(
        isinstance(node, ast.Attribute) and node.attr == name for node in ast.walk(tree))


def jobs_for(wanted: Mapping[str, Tuple[Import, ...]], used: Mapping[str, Iterable[str]],
             helpers: Set[Tuple[str, str]]) -> Tuple[Dict[str, Tuple[Import, ...]], Dict[str, Tuple[str, ...]]]:
    """(caller path -> the accepted imports to analyse it with, helper path -> the helpers to migrate)."""
    callers: Dict[str, Tuple[Import, ...]] = {}
    for caller, imports in wanted.items():
        kept = tuple(entry for entry in imports if (entry[1], entry[2]) in helpers and entry[0] in set(used[caller]))
        if kept:
            callers[caller] = kept
    defining: Dict[str, List[str]] = {}
    for path, name in sorted(helpers):
        defining.setdefault(path, []).append(name)
    return callers, {path: tuple(names) for path, names in defining.items()}
