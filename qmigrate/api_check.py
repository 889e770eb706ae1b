"""QM906: the `tf.*` names a module uses that its target TensorFlow version does not have, and
the calls it spells with a signature TensorFlow 1.0 changed (`tf.concat(2, values)`), which fail
there as a missing name does (SIGNATURES).

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


def _int_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def _positional(call: cst.Call) -> List[cst.BaseExpression]:
    return [arg.value for arg in call.args if arg.keyword is None and not arg.star]


def _keywords(call: cst.Call) -> set:
    return {arg.keyword.value for arg in call.args if arg.keyword is not None}


def _old_concat(call: cst.Call) -> Optional[str]:
    given = _positional(call)
    if "concat_dim" in _keywords(call) or (len(given) >= 2 and _int_literal(given[0])):
        return "TensorFlow 0.x's tf.concat(concat_dim, values); 1.0 made it tf.concat(values, axis)"
    return None


def _old_split(call: cst.Call) -> Optional[str]:
    given = _positional(call)
    if _keywords(call) & {"split_dim", "num_split"} or (len(given) >= 3 and _int_literal(given[0])):
        return ("TensorFlow 0.x's tf.split(split_dim, num_split, value); 1.0 made it tf.split(value, "
                "num_or_size_splits, axis)")
    return None


def _positional_losses(call: cst.Call) -> Optional[str]:
    if _positional(call):
        return "given positional arguments: since TensorFlow 1.0 it takes only named ones (labels=, logits=)"
    return None


def _old_resize(call: cst.Call) -> Optional[str]:
    # (a height given as a number: 1.x's size is a list or a tensor; a name could be either)
    given = _positional(call)
    if (len(given) >= 3 and _int_literal(given[1])) or _keywords(call) & {"new_height", "new_width"}:
        return ("TensorFlow 0.x's tf.image.resize_images(images, new_height, new_width); 1.0 made it "
                "resize_images(images, size)")
    return None


# Calls whose signature TensorFlow 1.0 changed (every target has the 1.0 one): spelled the old way,
# they fail on the target with a TypeError or ValueError, as a missing name fails.
SIGNATURES = {
    "tensorflow.concat": _old_concat,
    "tensorflow.split": _old_split,
    "tensorflow.nn.softmax_cross_entropy_with_logits": _positional_losses,
    "tensorflow.nn.sparse_softmax_cross_entropy_with_logits": _positional_losses,
    "tensorflow.nn.sigmoid_cross_entropy_with_logits": _positional_losses,
    "tensorflow.image.resize_images": _old_resize,
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
    for node in astindex.nodes(tree, ast.Attribute, ast.Import, ast.ImportFrom, ast.Call):
        if isinstance(node, ast.Call):
            spelled = ast_dotted(node.func)
            if spelled is not None and imports.resolve_dotted(spelled) in SIGNATURES:
                return True  # a call whose signature 1.0 changed: the scan tells how it is spelled
        elif isinstance(node, ast.Attribute):
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

    def visit_Call(self, node: cst.Call) -> bool:
        spelled = dotted(node.func)
        checker = SIGNATURES.get(self.imports.resolve_dotted(spelled)) if spelled else None
        why = checker(node) if checker is not None else None
        if why:
            self.found.append((node, "%s(...) is %s" % (spelled, why)))
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        spelled = dotted(node)
        if spelled is None:
            return True  # `f(x).y`: the chains are inside
        full_name = _judged(self.imports, self.table, spelled)
        if full_name:
            self.found.append((node, detail(self.table, full_name, spelled)))
        return False  # the outermost chain only
