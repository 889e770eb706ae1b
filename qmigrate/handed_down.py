"""Records handed down to a batching helper of another module of the run.

    # inputs.py                                   # batching.py
    from batching import make_batches             def make_batches(x, label, batch_size, shuffle):
    def train_inputs(files, batch_size):              if shuffle:
        queue = tf.train.string_input_producer(...)        return tf.train.shuffle_batch([x, label], ...)
        x, label = read(queue)                        return tf.train.batch([x, label], ...)
        return make_batches(x, label, batch_size, True)

Each module is analysed on its own, so neither sees the whole pipeline. `plan` (run by api between
the first pass and the set-level passes) finds, from the importers' `from module import name`,
the top-level functions of other modules of the run that are batching helpers
(helpers.find_batch_helper, including batch_down's returning ones). Contract:

- An importer is analysed again with the helper's source (`Handed.imported`): its pipelines batch
  a dataset and call the helper with the batch, as for a helper of its own module. The helper's
  batching arguments may read only its parameters, its own locals and builtins (its module's
  names mean nothing in the importer), and its defaults must be literals. A `num_threads` that
  cannot be written in the importer (`multiprocessing.cpu_count()` less two, computed in the
  helper) leaves the map function on one thread: threads change no example, batch or epoch.
  Its batched list may be built in Python just before (built_rows.py).
- The helper's module migrates the helper (`Handed.exported`) only when every reference to the
  helper in the run is a call an importer migrated: the migrated helper takes the batch, so a
  caller left as it is would get its per-record tensors back unbatched. Otherwise nothing of it
  changes anywhere, and the importers keep their first-pass result.

The worker side is `add_imported` (importer) and `migrate_exported` (helper's module).
"""
import ast
import dataclasses
import os
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import astindex, helpers
from qmigrate.names import ImportMap
from qmigrate.program import relative_base

MAX_ROUNDS = 4
UNSETTLED = "its callers could not be settled (each round of migrating them left another call out)"


@dataclass(frozen=True)
class Handed:
    """What the run asks of one module about batching helpers across modules (picklable)."""

    imported: Tuple[Tuple[str, str], ...] = ()  # (name the module calls it by, the helper's `def` source)
    exported: Tuple[str, ...] = ()  # its own helpers, whose every caller elsewhere was migrated
    refused: Tuple[Tuple[str, str], ...] = ()  # (name the module calls it by, why it is not followed)
    unfollowed: Tuple[Tuple[str, str], ...] = ()  # its own helpers the run did not follow, and why


# ---------------------------------------------------------------- worker side

def add_imported(context, handed: Optional[Handed]) -> Tuple[str, ...]:
    """Register the imported helpers as batching helpers of the module being analysed; returns
    the names registered (a name the module binds itself, at top level, stays its own)."""
    if handed is None or not (handed.imported or handed.refused):
        return ()
    names = []
    for local, reason in handed.refused:  # its callers say why they stay (recognise._helper_batching)
        if local not in context.functions and local not in context.batch_helpers:
            context.refused_helpers[local] = reason
    for local, text in handed.imported:
        if local in context.functions or local in context.batch_helpers or local in context.reader_helpers:
            continue
        function = cst.parse_statement(text)
        helper = helpers.find_batch_helper(function, context.imports) if isinstance(function, cst.FunctionDef) \
            else None
        if helper is None:  # its batching calls do not resolve to TensorFlow's here: not followed
            continue
        context.batch_helpers[local] = dataclasses.replace(helper, foreign=True)
        names.append(local)
    return tuple(names)


def explain_unfollowed(analysis, unfollowed: Tuple[Tuple[str, str], ...]) -> None:
    """Say at the batching calls of the module's helpers why their callers elsewhere stay."""
    reasons = dict(unfollowed)
    for stmt in analysis.module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in reasons:
            helper = helpers.find_batch_helper(stmt, analysis.imports)
            for site in helper.sites if helper is not None else ():
                if id(site.call) not in analysis.fixed_calls:
                    analysis.reasons[id(site.call)] = reasons[stmt.name.value]


def migrate_exported(analysis, names: Tuple[str, ...]) -> None:
    """Migrate the module's batching helpers `names` to take the batch (their callers, all in
    other modules, were migrated): in analysis.new_module, their batching calls counted fixed."""
    originals = {stmt.name.value: stmt for stmt in analysis.module.body if isinstance(stmt, cst.FunctionDef)}
    body = list(analysis.new_module.body)
    for position, stmt in enumerate(body):
        if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value in names):
            continue
        original = originals[stmt.name.value]
        helper = helpers.find_batch_helper(original, analysis.imports)
        if helper is None or not stmt.deep_equals(original):
            # plan() found it so in the same bytes; its callers elsewhere were migrated for it.
            raise AssertionError("batching helper %s() changed between passes" % stmt.name.value)
        body[position] = helpers.migrate_batch_helper(stmt, helper)
        analysis.fixed_calls.update(id(site.call) for site in helper.sites)
    analysis.new_module = analysis.new_module.with_changes(body=body)


# ---------------------------------------------------------------- set side

@dataclass(frozen=True)
class _Helper:
    path: str
    name: str
    text: str  # its `def`, as written


# A module's top-level `from M import a as b, c` statements: ((level, "M", (("a", "b"), ("c", None))), ...).
FromImports = Tuple[Tuple[int, str, Tuple[Tuple[str, Optional[str]], ...]], ...]


def from_imports(tree: ast.AST) -> FromImports:
    """The top-level `from ... import` statements of a module (what Planner.candidates reads: the
    worker that parsed the module gives them, so the parent need not parse it again)."""
    return tuple((node.level or 0, node.module or "", tuple((alias.name, alias.asname) for alias in node.names))
                 for node in tree.body if isinstance(node, ast.ImportFrom))


class Planner:
    """Finds the batching helpers importers hand records down to (over `program`, api.Program).

    `analysed(path)`: whether the first pass analysed the file to the end; `left(path)`: whether
    it left queue calls.
    """

    def __init__(self, program, analysed: Callable[[str], bool], left: Callable[[str], bool],
                 from_imports: Callable[[str], Optional["FromImports"]] = lambda path: None):
        self.program = program
        self.analysed = analysed
        self.left = left
        self.from_imports = from_imports
        self._helpers: Dict[str, Dict[str, Optional[_Helper]]] = {}
        self._modules: Dict[str, Optional[cst.Module]] = {}
        self.refusals: Dict[Tuple[str, str], str] = {}

    def candidates(self, paths: List[str]) -> Dict[str, Dict[str, _Helper]]:
        """importer path -> {name it calls the helper by: the helper}."""
        found: Dict[str, Dict[str, _Helper]] = {}
        for path in paths:
            if not (self.analysed(path) and self.left(path)):
                continue
            imports = self.from_imports(path)
            if imports is None:
                tree = self.program.tree(path)
                imports = from_imports(tree) if tree is not None else ()
            for level, module, names in imports:
                target = self._module_of(path, level, module)
                if target is None or target == path or not (self.analysed(target) and self.left(target)):
                    continue
                for name, asname in names:
                    helper = self._helper(target, name)
                    if helper is not None:
                        found.setdefault(path, {})[asname or name] = helper
        return found

    def accepted(self, importers: Dict[str, Dict[str, _Helper]],
                 uses: Dict[str, Dict[str, int]]) -> Dict[str, Dict[str, _Helper]]:
        """The importers' helpers whose every reference in the run is a call an importer
        migrated (`uses`: importer path -> name -> calls migrated). Why the others are not:
        `self.refusals[(helper path, name)]`."""
        by_helper: Dict[Tuple[str, str], List[Tuple[str, str]]] = {}
        for path, names in importers.items():
            for local, helper in names.items():
                by_helper.setdefault((helper.path, helper.name), []).append((path, local))
        good = set()
        for (home, name), callers in by_helper.items():
            places = self.program.references(name, home)
            callers_paths = {path for path, _ in callers}
            others = ["%s:%d" % (os.path.basename(path), line) for path, line in places if path not in callers_paths]
            if others:  # a module that imports it another way, or calls it as `module.name`
                self.refusals[(home, name)] = (
                    "%s() of %s is not followed: code qmigrate does not migrate with it also refers to it (%s), "
                    "and would get its tensors back unbatched" % (name, os.path.basename(home), ", ".join(others[:3])))
                continue
            short = [(path, local) for path, local in callers
                     if not uses.get(path, {}).get(local, 0) or uses[path][local] != self._calls(path, local, name)]
            if short:
                self.refusals[(home, name)] = (
                    "%s() of %s is not followed: not every call of it could be migrated (%s), and a call left as "
                    "it is would get its tensors back unbatched" % (name, os.path.basename(home), ", ".join(
                        os.path.basename(path) for path, _ in short[:3])))
                continue
            good.add((home, name))
        return {path: {local: helper for local, helper in names.items() if (helper.path, helper.name) in good}
                for path, names in importers.items()}

    def settled(self, candidates: Dict[str, Dict[str, _Helper]],
                importers: Dict[str, Dict[str, _Helper]]) -> Dict[str, Handed]:
        """What each module is asked once `importers` (of the `candidates`) are settled: the
        accepted helpers imported and exported, the others refused with why (self.refusals)."""
        refused: Dict[str, List[Tuple[str, str]]] = {}
        unfollowed: Dict[str, Set[Tuple[str, str]]] = {}
        for path, names in candidates.items():
            for local, helper in sorted(names.items()):
                if local in importers.get(path, {}):
                    continue
                reason = self.refusals.get((helper.path, helper.name), UNSETTLED)
                refused.setdefault(path, []).append((local, reason))
                unfollowed.setdefault(helper.path, set()).add((helper.name, reason))
        return handed_for(importers, exported=True, refused={path: tuple(r) for path, r in refused.items()},
                          unfollowed={path: tuple(sorted(r)) for path, r in unfollowed.items()})

    def _calls(self, path: str, local: str, name: str) -> int:
        """Loads of `local` in the importer; -1 when it also names `name` otherwise (an attribute)."""
        tree = self.program.tree(path)
        count = 0
        for node in astindex.nodes(tree, ast.Name, ast.Attribute):
            if isinstance(node, ast.Name) and node.id == local:
                if not isinstance(node.ctx, ast.Load):
                    return -1  # rebound: not the helper everywhere
                count += 1
            elif isinstance(node, ast.Attribute) and node.attr == name:
                return -1
        return count

    def _module_of(self, path: str, level: int, module: str) -> Optional[str]:
        if not level:
            return self.program.module_path(path, module) if module else None
        if not module:
            return None  # `from . import module`: a module, not a function
        base = relative_base(path, level, module)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if candidate in self.program.paths:
                return candidate
        return None

    def _helper(self, path: str, name: str) -> Optional[_Helper]:
        cache = self._helpers.setdefault(path, {})
        if name not in cache:
            cache[name] = self._find(path, name)
        return cache[name]

    def _parsed(self, path: str) -> Optional[cst.Module]:
        if path not in self._modules:
            try:
                self._modules[path] = cst.parse_module(self.program.source(path))
            except Exception:  # the worker said why, when it analysed the file
                self._modules[path] = None
        return self._modules[path]

    def _find(self, path: str, name: str) -> Optional[_Helper]:
        tree = self.program.tree(path)
        if tree is None:
            return None
        defs = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.name == name]
        if len(defs) != 1 or not isinstance(defs[0], ast.FunctionDef) or defs[0].decorator_list:
            return None
        if any(node.id == name for node in astindex.nodes(tree, ast.Name)):
            return None  # the module calls or rebinds it itself
        if not all(_literal(default) for default in defs[0].args.defaults + defs[0].args.kw_defaults if default):
            return None
        module = self._parsed(path)
        if module is None:
            return None
        function = next(stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name)
        helper = helpers.find_batch_helper(function, ImportMap(module, tree))
        if helper is None:
            return None
        if not helper.tensors_only_batched():
            return None  # a tensor also used apart from the batching (engine._module_context's test)
        text = module.code_for_node(function.with_changes(leading_lines=[]))
        return _Helper(path, name, text)


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, (ast.Num, ast.Str, ast.Bytes, ast.NameConstant)) or (
        isinstance(node, ast.Constant) and not isinstance(node.value, type(Ellipsis)))


def handed_for(importers: Dict[str, Dict[str, _Helper]], exported: bool,
               refused: Optional[Dict[str, Tuple[Tuple[str, str], ...]]] = None,
               unfollowed: Optional[Dict[str, Tuple[Tuple[str, str], ...]]] = None) -> Dict[str, Handed]:
    """What each module is asked: importers their helpers (and why the `refused` ones, by path,
    are not followed); with `exported`, the helpers' modules too (their helpers migrated, or
    `unfollowed`, by path: why not)."""
    handed: Dict[str, Handed] = {}
    homes: Dict[str, Set[str]] = {}
    for path in set(importers) | set(refused or {}):
        names = importers.get(path, {})
        if names or (refused or {}).get(path):
            handed[path] = Handed(imported=tuple(sorted((local, h.text) for local, h in names.items())),
                                  refused=tuple((refused or {}).get(path, ())))
        for helper in names.values():
            homes.setdefault(helper.path, set()).add(helper.name)
    if exported:
        for path in set(homes) | set(unfollowed or {}):
            own = handed.get(path, Handed())
            handed[path] = Handed(own.imported, tuple(sorted(homes.get(path, ()))), own.refused,
                                  tuple((unfollowed or {}).get(path, ())))
    return handed
