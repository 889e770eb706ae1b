"""Facts about top-level statements, computed once for all the versions of a module.

One file's analysis makes several versions of its module (the result, the result without queue
runners, a later pass's result with a link plan), which share most top-level statements. A
libcst transformer makes new nodes for every node it enters even when nothing in them changed,
but the subtrees it does not enter (expressions, mostly) are the very nodes it was given. So a
statement seen before is found again by its object or, failing that, by `same_tree` against the
statements kept under its kind and name: it compares by identity first and descends only where
nodes were made anew.

A memo holds its statements (so that their ids cannot be reused) up to a bound, for the rest of
the run's work in this process; `forget_all` drops every memo's content at a run's end. A held
statement keeps its whole tree alive (some 10 KB for a function of 40 lines), so the bound is
small: 1,000 statements took 36.9 s and 212 MB at most on 200 generated tower modules (-j1),
5,000 took 36.7 s and 250 MB, and 1 took 42.9 s and 195 MB. A statement found similar to a
held one is not held too.
"""
import dataclasses
from typing import Callable, Dict, Generic, Hashable, List, Tuple, TypeVar

import libcst as cst

Fact = TypeVar("Fact")
_MEMOS: List["StatementMemo"] = []
_PER_SHAPE = 8  # statements compared for one shape (the versions of one function, mostly)
_NONE = object()  # no fact kept


class StatementMemo(Generic[Fact]):
    """`get(statement, context)`: `compute(statement, context)`, or what it gave for the same tree
    in the same context (a hashable value the fact also depends on, such as a module's indent)."""

    def __init__(self, compute: Callable[[cst.CSTNode, Hashable], Fact], limit: int = 1000):
        self._compute, self._limit = compute, limit
        self._kept: Dict[int, Tuple[cst.CSTNode, Hashable, Fact]] = {}
        self._by_shape: Dict[Tuple[type, str], List[int]] = {}  # ids in _kept, the latest last
        _MEMOS.append(self)

    def get(self, statement: cst.CSTNode, context: Hashable = None) -> Fact:
        kept = self._kept.get(id(statement))
        if kept is not None and kept[0] is statement and kept[1] == context:
            return kept[2]
        fact = self._similar(statement, context)
        if fact is _NONE:
            fact = self._compute(statement, context)
            self._keep(statement, context, fact)  # (a statement found similar is not held: memory)
        return fact

    def remember(self, statement: cst.CSTNode, context: Hashable, fact: Fact) -> None:
        """Keep `fact` as what `compute(statement, context)` gives (known another way)."""
        self._keep(statement, context, fact)

    def _similar(self, statement: cst.CSTNode, context: Hashable):
        """The fact kept for a statement of the same tree and context, else _NONE."""
        for key in reversed(self._by_shape.get(shape(statement), ())):
            kept = self._kept.get(key)
            if kept is not None and kept[1] == context and same_tree(kept[0], statement):
                return kept[2]
        return _NONE

    def _keep(self, statement: cst.CSTNode, context: Hashable, fact: Fact) -> None:
        if id(statement) not in self._kept and len(self._kept) >= self._limit:
            for key in list(self._kept)[:len(self._kept) // 2 + 1]:  # the oldest half
                del self._kept[key]
            self._by_shape = {key: kept for key, kept in (
                (key, [i for i in ids if i in self._kept]) for key, ids in self._by_shape.items()) if kept}
        self._kept[id(statement)] = (statement, context, fact)
        ids = self._by_shape.setdefault(shape(statement), [])
        if id(statement) not in ids:
            ids.append(id(statement))
            del ids[:-_PER_SHAPE]

    def forget(self) -> None:
        self._kept.clear()
        self._by_shape.clear()


def forget_all() -> None:
    """Drop what every memo holds (a run's end: the statements it holds are no longer needed)."""
    for memo in _MEMOS:
        memo.forget()


def same_tree(a, b) -> bool:
    """Whether two nodes (or values of their fields) are the same tree, as libcst's deep_equals
    says, comparing objects by identity first."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is tuple or kind is list:
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))
    names = _FIELDS.get(kind)
    if names is None:
        if not isinstance(a, cst.CSTNode):
            return a == b
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(a) if f.compare)
    return all(same_tree(getattr(a, name), getattr(b, name)) for name in names)


_FIELDS: Dict[type, Tuple[str, ...]] = {}  # node class -> the fields deep_equals compares


def shape(statement: cst.CSTNode) -> Tuple[type, str]:
    """What statements are compared by: their kind, and a name that tells most apart (a def's or
    class's name; the first small statement's target, callee and first string, or import)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return type(statement), statement.name.value
    if not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
        return type(statement), ""
    small = statement.body[0]
    if isinstance(small, cst.Assign):
        label = _dotted(small.targets[0].target)
    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        label = _dotted(small.target)
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        first = call.args[0].value if call.args else None
        label = _dotted(call.func) + (" " + first.value if isinstance(first, cst.SimpleString) else "")
    elif isinstance(small, cst.Import):
        label = _dotted(small.names[0].name)
    elif isinstance(small, cst.ImportFrom):
        label = _dotted(small.module) if small.module is not None else "."
    else:
        label = ""
    return type(small), label


def _dotted(node) -> str:
    """`a.b.c` for that expression, else "" (names.dotted's, which this module cannot import:
    names imports cstutil, which imports this)."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    return ".".join([node.value] + parts[::-1]) if isinstance(node, cst.Name) else ""
