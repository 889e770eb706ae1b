"""Queue API calls spelled `tf.x` in a module where `tf` is not TensorFlow: a fragment that never
binds `tf` (meant to be pasted or exec'd where TensorFlow is imported), or a module that imports
another package as `tf` (sugartensor, which re-exports TensorFlow's names with its own).

    def examples(files, batch_size):           # no `import tensorflow as tf` anywhere
        queue = tf.train.string_input_producer(files)

qmigrate reads TensorFlow's names through the module's imports, so nothing of it would be
followed, and the file would keep its queue code without a word. Each such call is reported by
its own rule, not rewritten, with what to do: add the import (or build the input on TensorFlow
itself) and run again.
"""
import ast
from typing import Callable, Dict, Optional, Set

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.rules import rule_for

_AS_IMPORTED = ImportMap.from_aliases({"tf": "tensorflow"})
REASON = "the module uses `tf` without importing it, and qmigrate reads TensorFlow's names through the module's imports"
TODO = "add `import tensorflow as tf` to the module and run qmigrate again"


def applies(source: bytes, imports: ImportMap, tree: Optional[ast.AST]) -> bool:
    """Whether the module says `tf.` and binds `tf` nowhere, or only by importing something that is
    not TensorFlow (None tree: not parsed by the stdlib)."""
    if b"tf." not in source or tree is None:
        return False
    if "tf" in imports.aliases:
        return _other_package(imports.aliases["tf"]) is not None and _bound_by_imports_only(tree)
    return not binds_tf(tree)


def _other_package(target: str) -> Optional[str]:
    """The package `tf` is imported from when it is not TensorFlow (None when it is)."""
    top = target.split(".")[0]
    return None if top == "tensorflow" else top


def _bound_by_imports_only(tree: ast.AST) -> bool:
    """`tf` is bound by one import alone (so that import says what it is everywhere)."""
    imported = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
        (alias.asname or alias.name.split(".")[0]) == "tf" for alias in node.names)]
    others = binds_tf(ast.Module(body=[node for node in tree.body if node not in imported], type_ignores=[]))
    return len(imported) == 1 and not others


def binds_tf(tree: ast.AST) -> bool:
    """Whether the module binds the name `tf` anywhere (an import, assignment, parameter, def...)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "tf" and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.arg) and node.arg == "tf":
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "tf":
            return True
        if isinstance(node, ast.ExceptHandler) and node.name == "tf":
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name.split(".")[0]) == "tf" for alias in node.names):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and "tf" in node.names:
            return True
    return False


def report(analysis, wants: Callable[[str], bool], suppressed: Dict[int, Set[str]], imports: ImportMap) -> None:
    """Each queue API call through a `tf` that is not TensorFlow, as an occurrence of its rule with
    the reason and the to-do (`analysis`: the engine's FileAnalysis; `suppressed`: line -> codes
    marked; `imports`: the module's)."""
    reason, todo = REASON, TODO
    if "tf" in imports.aliases:
        package = _other_package(imports.aliases["tf"])
        reason = ("`tf` is `%s` here, imported as `tf`, not TensorFlow, and qmigrate reads TensorFlow's names "
                  "through the module's imports" % imports.aliases["tf"])
        todo = ("if `%s` stands for TensorFlow, import TensorFlow itself too (`import tensorflow`), spell the "
                "input pipeline's calls through it and run qmigrate again" % package)
    elif analysis.tree is not None:
        stars = ["." * node.level + (node.module or "") for node in analysis.tree.body
                 if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)]
        if stars:  # star_imports.py did not prove what they bind `tf` to
            reason = ("the module uses `tf` without importing it; its star imports (%s) may bind it, and "
                      "qmigrate follows them only when each is a module of the run that binds `tf` to TensorFlow "
                      "(a top-level `import tensorflow as tf`) or not at all" % ", ".join(
                          "`from %s import *`" % name for name in stars))
    for call in cstutil.calls_of(analysis.module):
        name = _AS_IMPORTED.resolve(call.func)
        rule = rule_for(name)
        if rule is None or not wants(rule.code) or not analysis.add_occurrence(rule, call, name, suppressed):
            continue
        analysis.reasons[id(call)] = reason
        analysis.todo[id(call)] = todo
