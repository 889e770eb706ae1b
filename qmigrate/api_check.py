"""QM906: the `tf.*` names a module uses that its target TensorFlow version does not have.

A name is judged by the target's symbol table (`SymbolTable.first_missing`): only names under the
namespaces the table walked completely. Each reference is reported where it is written: an
import, or the outermost `a.b.c` chain of an expression. Uses of a local name whose own binding
is already reported (`slim = tf.contrib.slim`, then `slim.conv2d`) are not reported again, nor
are the queue APIs, which their own rules report.
"""
import ast
from typing import List, Optional, Tuple

import libcst as cst

from qmigrate import astindex, cstutil
from qmigrate.names import ImportMap, ast_dotted, canonical, dotted
from qmigrate.rules import rule_for
from qmigrate.rules.target_api import ApiNotInTarget
from qmigrate.targets import SymbolTable, Target

# Names TensorFlow renamed (in 1.0, and initialize_*_variables in 1.x), with what replaced them;
# offered only where the replacement exists in the target.
RENAMED = {
    "tensorflow.image.per_image_whitening": "tensorflow.image.per_image_standardization",
    "tensorflow.mul": "tensorflow.multiply",
    "tensorflow.sub": "tensorflow.subtract",
    "tensorflow.neg": "tensorflow.negative",
    "tensorflow.pack": "tensorflow.stack",
    "tensorflow.unpack": "tensorflow.unstack",
    "tensorflow.image_summary": "tensorflow.summary.image",
    "tensorflow.scalar_summary": "tensorflow.summary.scalar",
    "tensorflow.histogram_summary": "tensorflow.summary.histogram",
    "tensorflow.audio_summary": "tensorflow.summary.audio",
    "tensorflow.merge_summary": "tensorflow.summary.merge",
    "tensorflow.merge_all_summaries": "tensorflow.summary.merge_all",
    "tensorflow.train.SummaryWriter": "tensorflow.summary.FileWriter",
    "tensorflow.initialize_all_variables": "tensorflow.global_variables_initializer",
    "tensorflow.initialize_local_variables": "tensorflow.local_variables_initializer",
}


def applies(occurrences, edits, wants) -> bool:
    """Looked for in modules with queue code (notes aside) or tower edits, when QM906 is wanted."""
    return wants(ApiNotInTarget.code) and (bool(edits) or any(not rule.note for rule, _, _, _ in occurrences))


def find(module: cst.Module, imports: ImportMap, target: Target,
         tree: Optional[ast.AST] = None) -> List[Tuple[cst.CSTNode, str]]:
    """(node, detail) for each reference to a name the target lacks, in source order.

    `tree`, the stdlib parser's tree of the same module, answers first whether there is any
    (several times faster than visiting the libcst tree, which only runs when there is)."""
    if tree is not None and not _any_in_tree(tree, imports, target.symbols):
        return []
    scan = _Scan(imports, target.symbols)
    cstutil.walk(module, scan)
    return scan.found


def _judged(imports: ImportMap, table: SymbolTable, spelled: str) -> Optional[str]:
    """The full name of an `a.b.c` chain when it is reported, else None: its head is bound to
    TensorFlow by a binding that is not itself reported, and the name is not a queue API."""
    bound = imports.resolve_dotted(spelled.split(".")[0])
    if bound is None or table.missing(bound):
        return None
    full_name = imports.resolve_dotted(spelled)  # not canonical: tf.compat.v1.x must exist as such
    return full_name if _reported(table, full_name) else None


def _reported(table: SymbolTable, full_name: Optional[str]) -> bool:
    return bool(full_name and full_name.startswith("tensorflow.") and rule_for(canonical(full_name)) is None
                and table.missing(full_name))


def _any_in_tree(tree: ast.AST, imports: ImportMap, table: SymbolTable) -> bool:
    """Whether _Scan would find anything. Inner chains are judged too (ast.walk cannot prune);
    a chain's prefix missing implies the chain is, so the answer is the same."""
    for node in astindex.nodes(tree, ast.Attribute, ast.Import, ast.ImportFrom):
        if isinstance(node, ast.Attribute):
            spelled = ast_dotted(node)
            if spelled is not None and _judged(imports, table, spelled):
                return True
        elif isinstance(node, ast.Import):
            if any(_reported(table, alias.name) for alias in node.names):
                return True
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if any(_reported(table, node.module if alias.name == "*" else node.module + "." + alias.name)
                   for alias in node.names):
                return True
    return False


def _short(full_name: str) -> str:
    return "tf." + full_name[len("tensorflow."):] if full_name.startswith("tensorflow.") else full_name


def detail(table: SymbolTable, full_name: str, spelled: str) -> str:
    """What is missing, and what replaced it when that is known for sure."""
    lacking = table.first_missing(full_name)
    if lacking == full_name:
        text = "%s is not in TensorFlow %s" % (spelled, table.wheel)
    else:
        text = "%s: TensorFlow %s has no %s" % (spelled, table.wheel, _short(lacking))
    replacement = _replacement(table, full_name)
    if replacement is None:
        return text
    kept = replacement.startswith("tensorflow.compat.v1.")
    return text + "; %s %s it" % (_short(replacement), "keeps" if kept else "replaced")


def _replacement(table: SymbolTable, full_name: str) -> Optional[str]:
    renamed = RENAMED.get(full_name)
    if renamed and table.has(renamed):
        return renamed
    # TF 2 keeps the 1.x API under tf.compat.v1.
    for name in filter(None, (renamed, full_name)):
        compat = "tensorflow.compat.v1." + name[len("tensorflow."):]
        if table.has(compat):
            return compat
    return None


class _Scan(cst.CSTVisitor):
    def __init__(self, imports: ImportMap, table: SymbolTable):
        self.imports = imports
        self.table = table
        self.found: List[Tuple[cst.CSTNode, str]] = []

    def _check(self, node: cst.CSTNode, full_name: Optional[str], spelled: str) -> None:
        if _reported(self.table, full_name):
            self.found.append((node, detail(self.table, full_name, spelled)))

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = dotted(alias.name)
            self._check(alias, name, name or "")
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        base = dotted(node.module) if node.module is not None and not node.relative else None
        if base is None:
            return False
        if isinstance(node.names, cst.ImportStar):
            self._check(node, base, base)
            return False
        for alias in node.names:
            name = dotted(alias.name)
            self._check(alias, base + "." + name if name else None, "%s.%s" % (base, name))
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        spelled = dotted(node)
        if spelled is None:
            return True  # `f(x).y`: the chains are inside
        full_name = _judged(self.imports, self.table, spelled)
        if full_name:
            self.found.append((node, detail(self.table, full_name, spelled)))
        return False  # the outermost chain only
