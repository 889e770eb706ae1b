"""Queue API calls spelled `tf.x` in a module that never binds `tf`: a fragment meant to be pasted
or exec'd where TensorFlow is imported.

    def examples(files, batch_size):           # no `import tensorflow as tf` anywhere
        queue = tf.train.string_input_producer(files)

qmigrate reads TensorFlow's names through the module's imports, so nothing of it would be
followed, and the file would keep its queue code without a word. Each such call is reported by
its own rule, not rewritten, with what to do: add the import and run again.
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
    """Whether the module says `tf.` and binds `tf` nowhere (None tree: not parsed by the stdlib)."""
    return b"tf." in source and "tf" not in imports.aliases and tree is not None and not _binds_tf(tree)


def _binds_tf(tree: ast.AST) -> bool:
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


def report(analysis, wants: Callable[[str], bool], suppressed: Dict[int, Set[str]]) -> None:
    """Each queue API call through the unbound `tf`, as an occurrence of its rule with the reason
    and the to-do (`analysis`: the engine's FileAnalysis; `suppressed`: line -> codes marked)."""
    for call in cstutil.calls_of(analysis.module):
        name = _AS_IMPORTED.resolve(call.func)
        rule = rule_for(name)
        if rule is None or not wants(rule.code) or not analysis.add_occurrence(rule, call, name, suppressed):
            continue
        analysis.reasons[id(call)] = REASON
        analysis.todo[id(call)] = TODO
