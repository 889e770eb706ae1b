"""Programs that copy their graph with Edward: their queue pipelines stay.

Edward's inferences (ed.KLqp, ed.MAP...) copy the model's graph with ed.copy, which does not copy
an op whose type names a queue: a copied model reads the same dequeue as the original, so the
data and the model's copy see the same batch. It copies a dataset's iterator like any other op:
a migrated pipeline would give the copied model batches of its own, from a second, independently
shuffled iterator. Measured under TF 1.8 (a fit of y = 2x from `slice_input_producer` and
`shuffle_batch`): the posterior mean of w was 2.02 before migration and 1.49-1.53 after.

So a module that imports edward keeps its pipelines (`reason`), and so does every module of the
run it imports, directly or not (`imported_reason`, asked for by the run through the module's
kept names under KEPT_KEY): their batches may reach its model.
"""
import ast
import os
from typing import Optional

from qmigrate.names import ImportMap

# The name under which the run asks a module to keep its pipelines (api's `keeps`).
KEPT_KEY = "(graph copied)"
_WHY = ("ed.copy, which Edward's inferences run on the model, shares a queue's dequeue between the copies but "
        "copies a dataset's iterator into a second one: the copied model would read other batches than the data "
        "it is fitted to")


def uses_edward(imports: ImportMap) -> bool:
    """Whether the module imports edward (or a module of it)."""
    return any(module == "edward" or module.startswith("edward.") for module in imports.aliases.values())


def imports_edward(tree: Optional[ast.AST]) -> bool:
    """The same, on a stdlib tree (None: not parsed)."""
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "edward" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "edward":
            return True
    return False


def reason() -> str:
    """Why a module that imports edward keeps its pipelines."""
    return "the module imports edward: " + _WHY


def imported_reason(path: str, importer: str) -> str:
    """Why a module that `importer` (which imports edward) imports, directly or not, keeps them."""
    return "%s, which imports edward, imports this module: %s" % (
        os.path.relpath(importer, os.path.dirname(path)), _WHY)
