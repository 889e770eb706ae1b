"""A per-record structure the input function also returns: `return input_ops, batch_ops`.

Migrated, the per-record tensors live in the map function; the function still returns a value of
the same structure (the same keys, dtypes and static shapes) in that place: one record of its own
iterator over the dataset's head (`Pipeline.returned_record`). Evaluated, it would give records of
a stream of its own, where the queue's dequeue took them from the batches' stream: so this is
done only when every caller in the files migrated together discards that result
(`_, batches = create_input_ops(...)`). The defining module's own callers are checked when the
pipeline is recognised (`first_use`); those of the other modules after the first pass
(`elsewhere`), which sends the module back with the reason when one of them uses it.
"""
import ast
import os
from typing import Optional, Tuple

# How a kept result is named among the helpers kept for other modules (api's `keeps`).
KEPT_PREFIX = "()"


def first_use(tree: ast.AST, name: str, position: int, arity: int) -> Optional[int]:
    """The line of the first mention of the function `name` in `tree` that is not a call whose
    result is unpacked into `arity` targets with `_` at `position`, nor an import; None if none."""
    discarding = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
            target = node.targets[0]
            if (isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == arity
                    and not any(isinstance(e, ast.Starred) for e in target.elts)
                    and isinstance(target.elts[position], ast.Name) and target.elts[position].id == "_"):
                discarding.add(id(node.value.func))
    lines = []
    for node in ast.walk(tree):
        mentions = (isinstance(node, ast.Name) and node.id == name) or (
            isinstance(node, ast.Attribute) and node.attr == name)
        if mentions and id(node) not in discarding:
            lines.append(node.lineno)
    return min(lines) if lines else None


def elsewhere(files_mentioning, defining: str, mentions, tree_of, name: str, position: int,
              arity: int) -> Optional[Tuple[str, int]]:
    """(path, line) of the first use of the result in a module of the run other than `defining`
    (see first_use); None when every one discards it. `files_mentioning(name)`: the files of the
    run that may name it (Program.files_mentioning); `mentions(path, name)`: whether the file names
    it at all (Program.mentions), before it is parsed."""
    for path in sorted(files_mentioning(name)):
        if path == defining or not mentions(path, name):
            continue
        tree = tree_of(path)
        if tree is None:
            return path, 1  # a module the stdlib parser rejects: its uses cannot be seen
        line = first_use(tree, name, position, arity)
        if line is not None:
            return path, line
    return None


def kept_reason(path: str, line: int) -> str:
    return "its caller at %s:%d may use that result (only `_` in its place, at every call, says it " \
           "does not)" % (os.path.basename(path), line)
