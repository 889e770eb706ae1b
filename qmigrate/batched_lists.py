"""A batched list built with `+` (`tf.train.batch([image, label] + grams, ...)`).

Contract:
- `literal_count(expr)`: how many tensors the list literals of a `+` chain of list literals and
  names hold (None: not such a chain). tf.train.batch returns a list for it only when that is two
  or more (for a list of one it returns the tensor itself); the dataset's element is then
  `tuple(<the chain>)`, kept whole as a list by `list(get_next())`.
- `parts(expr)`: such a chain whose literals hold only names, each name once, and at most one
  name part (a list of per-record tensors of a length not seen here), as its parts; else None.
- `unpacking(parts, name)`: the statements binding each part's names from the list `name`: what
  the arm that batches nothing runs so that its records carry the batched names, as they did
  when it read the record's tensors.
"""
from typing import List, Optional, Tuple

import libcst as cst

# A part: ("names", (n1, n2, ...)) for a list literal of names, ("list", name) for a name.
Part = Tuple[str, object]


def parts(expr: cst.BaseExpression) -> Optional[List[Part]]:
    """The parts of a `+` chain of list literals of names and names, in order; None otherwise
    (a single literal is no chain). At most one name part: its length fixes every later offset."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add)):
        return None
    found = _flatten(expr)
    if found is None or sum(1 for kind, _ in found if kind == "list") > 1:
        return None
    names = [name for kind, value in found for name in (value if kind == "names" else (value,))]
    if len(set(names)) != len(names):
        return None
    return found


def _flatten(expr: cst.BaseExpression) -> Optional[List[Part]]:
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) and not expr.lpar:
        left, right = _flatten(expr.left), _flatten(expr.right)
        return None if left is None or right is None else left + right
    if isinstance(expr, cst.List) and expr.elements and not expr.lpar:
        if not all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in expr.elements):
            return None
        return [("names", tuple(e.value.value for e in expr.elements))]
    if isinstance(expr, cst.Name) and not expr.lpar:
        return [("list", expr.value)]
    return None


def literal_count(expr: cst.BaseExpression) -> Optional[int]:
    """For a `+` chain of list literals (of any tensors, no *unpacking) and names, the number of
    tensors its literals hold; None for any other expression (a single literal is no chain)."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add)):
        return None
    return _literals(expr)


def _literals(expr: cst.BaseExpression) -> Optional[int]:
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) and not expr.lpar:
        left, right = _literals(expr.left), _literals(expr.right)
        return None if left is None or right is None else left + right
    if isinstance(expr, cst.List) and not expr.lpar:
        return None if any(isinstance(e, cst.StarredElement) for e in expr.elements) else len(expr.elements)
    if isinstance(expr, cst.Name) and not expr.lpar:
        return 0
    return None


def names(found: List[Part]) -> Tuple[str, ...]:
    """Every name the chain batches, in order."""
    return tuple(name for kind, value in found for name in (value if kind == "names" else (value,)))


def unpacking(found: List[Part], name: str) -> List[str]:
    """Statements binding each part from the list `name`: `a, b = X[:2]`, `grams = X[2:]`."""
    after = [0] * len(found)  # literal elements after each part
    for position in range(len(found) - 2, -1, -1):
        kind, value = found[position + 1]
        after[position] = after[position + 1] + (len(value) if kind == "names" else 0)
    listed = next((position for position, (kind, _) in enumerate(found) if kind == "list"), None)
    statements, offset = [], 0
    for position, (kind, value) in enumerate(found):
        from_end = listed is not None and position > listed
        if kind == "list":
            start = str(offset) if offset else ""
            end = "-%d" % after[position] if after[position] else ""
            statements.append("%s = %s[%s:%s]" % (value, name, start, end))
            continue
        count = len(value)
        if from_end:
            start = -(after[position] + count)
            end = start + count
            index = "%d" % start if count == 1 else "%d:%s" % (start, "%d" % end if end else "")
        else:
            index = "%d" % offset if count == 1 else "%s:%d" % (str(offset) if offset else "", offset + count)
            offset += count
        statements.append("%s = %s[%s]" % (", ".join(value), name, index))
    return statements
