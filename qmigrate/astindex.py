"""The nodes of a stdlib tree by class, from one walk of it kept with the tree.

An analysis asks the stdlib tree of a module several questions (its imports, its attribute
loads, its calls, its `input_fn`s...), each about a few node classes: one `ast.walk` answers them
all, instead of one walk per question.
"""
import ast
from typing import Dict, List, Tuple

_INDEX = "_qmigrate_index"  # attribute of the tree that holds its index


def indexed(tree: ast.AST) -> bool:
    """Whether `tree` already has its index (a question to it costs no walk)."""
    return getattr(tree, _INDEX, None) is not None


def nodes(tree: ast.AST, *kinds: type) -> List[ast.AST]:
    """The nodes under `tree` (not `tree` itself) of the given classes (exact classes, not
    subclasses), in the order `ast.walk(tree)` yields them."""
    index: Dict[type, List[Tuple[int, ast.AST]]] = getattr(tree, _INDEX, None)
    if index is None:
        index = {}
        for position, node in enumerate(ast.walk(tree)):
            if node is not tree:  # the index holds no reference to its tree: no cycle to wait for the gc
                index.setdefault(type(node), []).append((position, node))
        setattr(tree, _INDEX, index)
    if len(kinds) == 1:
        return [node for _, node in index.get(kinds[0], ())]
    return [node for _, node in sorted((item for kind in kinds for item in index.get(kind, ())),
                                       key=lambda item: item[0])]
