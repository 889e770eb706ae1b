"""What each tower of an untraced tower loop reads: element i of lists held on the object or passed in.

    class Model(object):
        def __init__(self, hp, images, labels):
            self._hp, self._images, self._labels = hp, images, labels
        def build(self):
            for i in range(self._hp.num_gpus):
                with tf.device('/gpu:%d' % i):
                    self.tower(self._images[i], self._labels[i])

Each tower reads its own element of `self._images`, a list the class's caller passes as `images`.
Whether that list holds one batch per tower, each from its own shard, and as many as the loop has
towers, is decided where the object is made, which qmigrate does not follow: the QM907 note says
exactly that (untraced_towers.py finds the loop; this module reads what it indexes, stdlib ast only).
"""
import ast
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from qmigrate.summary import own_nodes


@dataclass(frozen=True)
class TowerReads:
    """Lists a tower loop indexes by its variable, and where they come from (picklable)."""

    lists: Tuple[str, ...]  # `self._images`, `images`
    # per list: (the function or class it is a parameter of, the parameter), ("", filler) for a
    # list on the object that a method of the class fills (`self.losses.append(...)`), or ("", "")
    origins: Tuple[Tuple[str, str], ...]
    count: str  # the loop's tower count (`self._hp.num_gpus`), or "" when not `range(count)`
    # per list: the index of its parameter among the call's positional arguments (-1: none)
    positions: Tuple[int, ...] = ()
    callers: Tuple[str, ...] = ()  # what the run's calls of the owner pass there (calls_passing)
    variable: str = "i"  # the loop variable

    @property
    def passed(self) -> bool:
        """Some list is passed in by the caller of a function or class (a parameter)."""
        return any(owner for owner, _ in self.origins)

    def describe(self) -> str:
        """`element i of `self._images` and `self._labels` (Model() takes them as its parameters
        `images` and `labels`)`."""
        named = _joined(["`%s`" % name for name in self.lists])
        parts = []
        owners = sorted({owner for owner, _ in self.origins if owner})
        for owner in owners:
            params = ["`%s`" % param for o, param in self.origins if o == owner]
            parts.append("%s() takes %s as its parameter%s %s" % (
                owner, "it" if len(self.lists) == 1 else "them" if len(params) == len(self.lists) else "one",
                "s" if len(params) > 1 else "", _joined(params)))
        fillers = sorted({filler for owner, filler in self.origins if not owner and filler})
        for filler in fillers:
            parts.append("%s() fills %s" % (filler, "it" if len(self.lists) == 1 else "them"
                                            if all(f == filler for _, f in self.origins) else "one"))
        parts += list(self.callers)
        return "element %s of %s%s" % (self.variable, named, " (%s)" % "; ".join(parts) if parts else "")


def _joined(items: List[str]) -> str:
    return items[0] if len(items) == 1 else "%s and %s" % (", ".join(items[:-1]), items[-1])


def per_tower_reads(tree: ast.AST, loop: ast.For) -> Optional[TowerReads]:
    """The lists `loop` indexes by its variable (`xs[i]`, `self.xs[i]`) in its own statements,
    with the constructor or function parameter each comes from when that is plain; None when the
    loop variable is not one name or indexes nothing. Never raises."""
    if not isinstance(loop.target, ast.Name):
        return None
    variable = loop.target.id
    function, cls = _enclosing(tree, loop)
    lists: List[str] = []
    subscripts = sorted((node for node in ast.walk(loop) if isinstance(node, ast.Subscript)),
                        key=lambda node: (node.lineno, node.col_offset))  # in the order of the source
    for node in subscripts:
        if _index_name(node) == variable:
            text = _text(node.value)
            if text is not None and text not in lists:
                lists.append(text)
    if not lists:
        return None
    init_params = _init_bindings(cls) if cls is not None else {}
    params = [a.arg for a in function.args.args] if function is not None else []
    fillers = _fillers(cls) if cls is not None else {}
    origins, positions = [], []
    init = _init(cls) if cls is not None else None
    init_order = [a.arg for a in init.args.args[1:]] if init is not None else []
    for text in lists:
        head, _, attr = text.partition(".")
        on_self = bool(params and attr and "." not in attr and head == params[0] and cls is not None)
        if on_self and attr in init_params:
            origins.append((cls.name, init_params[attr]))
            positions.append(init_order.index(init_params[attr]))
        elif on_self and attr in fillers:
            origins.append(("", "%s.%s" % (cls.name, fillers[attr])))
            positions.append(-1)
        elif not attr and head in params and function is not None:
            origins.append((function.name, head))
            positions.append(params.index(head) - (1 if cls is not None else 0))
        else:
            origins.append(("", ""))
            positions.append(-1)
    count = ""
    if isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range" \
            and len(loop.iter.args) == 1 and not loop.iter.keywords:
        count = _text(loop.iter.args[0]) or ""
    return TowerReads(tuple(lists), tuple(origins), count, tuple(positions), variable=variable)


def _index_name(node: ast.Subscript) -> Optional[str]:
    index = node.slice
    if type(index).__name__ == "Index":  # Python 3.8's wrapper
        index = index.value
    return index.id if isinstance(index, ast.Name) else None


def _text(node: ast.AST) -> Optional[str]:
    """`a.b.c` for a chain of attributes of a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id] + parts[::-1])


def _enclosing(tree: ast.AST, loop: ast.For) -> Tuple[Optional[ast.FunctionDef], Optional[ast.ClassDef]]:
    """The innermost function holding `loop`, and its class when it is a method of a top-level class."""
    for top in getattr(tree, "body", ()):
        for function in _functions(top):
            if any(node is loop for node in ast.walk(function)):
                inner = next((f for f in ast.walk(function) if isinstance(f, ast.FunctionDef) and f is not function
                              and any(node is loop for node in ast.walk(f))), None)
                if inner is not None:
                    return inner, None
                return function, top if isinstance(top, ast.ClassDef) else None
    return None, None


def _functions(top: ast.AST):
    if isinstance(top, ast.FunctionDef):
        yield top
    elif isinstance(top, ast.ClassDef):
        for statement in top.body:
            if isinstance(statement, ast.FunctionDef):
                yield statement


def _fillers(cls: ast.ClassDef) -> Dict[str, str]:
    """attribute → the first method (by position) that appends to or extends `self.attribute`."""
    found: Dict[str, str] = {}
    for method in cls.body:
        if not (isinstance(method, ast.FunctionDef) and method.args.args):
            continue
        self_name = method.args.args[0].arg
        for node in ast.walk(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Attribute) \
                    and isinstance(node.func.value.value, ast.Name) and node.func.value.value.id == self_name:
                found.setdefault(node.func.value.attr, method.name)
    return found


def _init(cls: ast.ClassDef) -> Optional[ast.FunctionDef]:
    return next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)


def _init_bindings(cls: ast.ClassDef) -> Dict[str, str]:
    """attribute → parameter, for `self.attr = param` (or a tuple of them) in __init__, when the
    attribute is bound nowhere else in the class and the parameter not rebound in __init__."""
    init = _init(cls)
    if init is None or not init.args.args:
        return {}
    self_name = init.args.args[0].arg
    params = {a.arg for a in init.args.args[1:]}
    stored: Dict[str, int] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            stored[node.attr] = stored.get(node.attr, 0) + 1
    rebound = {node.id for node in ast.walk(init) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    found = {}
    for statement in init.body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target, value = statement.targets[0], statement.value
        pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) and isinstance(
            value, ast.Tuple) and len(target.elts) == len(value.elts) else [(target, value)]
        for left, right in pairs:
            if isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name) and left.value.id == self_name \
                    and isinstance(right, ast.Name) and right.id in params and right.id not in rebound \
                    and stored.get(left.attr) == 1:
                found[left.attr] = right.id
    return found


def calls_passing(reads: TowerReads, sources: Dict[str, ast.AST], here: str, limit: int = 4) -> Tuple[str, ...]:
    """What the calls of the lists' owner (`Model(...)`, `module.Model(...)`) in `sources` (path →
    stdlib tree: the loop's file and the files that import it) pass for the lists: `train.py:12
    passes `images` and `labels`, which data.inputs() returns (line 9)`, paths relative to the
    folder of `here`; the first `limit` calls, then a count of the others. Never raises."""
    owners = {owner for owner, _ in reads.origins if owner}
    if len(owners) != 1:
        return ()
    owner = owners.pop()
    wanted = [position for (o, _), position in zip(reads.origins, reads.positions) if o == owner]
    found = []
    for path in sorted(sources):
        tree = sources[path]
        for scope in [tree] + [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]:
            for node in own_nodes(ast.iter_child_nodes(scope)):
                if not (isinstance(node, ast.Call) and _called_name(node.func) == owner):
                    continue
                if any(isinstance(arg, ast.Starred) for arg in node.args):
                    continue
                passed = [node.args[position] if 0 <= position < len(node.args) else None for position in wanted]
                if any(arg is None for arg in passed):
                    continue
                where = "%s:%d" % (os.path.relpath(path, os.path.dirname(here)), node.lineno)
                found.append((path, node.lineno, where + " passes " + _joined(
                    ["`%s`" % _source(arg) for arg in passed]) + _made_by(scope, passed, node.lineno)))
    found = [text for _, _, text in sorted(found)]
    if len(found) > limit:
        found = found[:limit] + ["%d more call%s" % (len(found) - limit, "s" if len(found) - limit > 1 else "")]
    return tuple(found)


def _called_name(func: ast.AST) -> Optional[str]:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - Python < 3.9 has no unparse
        return _text(node) or "..."


def _made_by(scope: ast.AST, passed, line: int) -> str:
    """`, which data.inputs() returns (line 9)` when every argument is a name that one assignment
    of the scope, before `line`, binds from one call's result; else ""."""
    if not all(isinstance(arg, ast.Name) for arg in passed):
        return ""
    makers = set()
    for arg in passed:
        bindings = [node for node in own_nodes(ast.iter_child_nodes(scope)) if isinstance(node, ast.Assign) and any(
            isinstance(name, ast.Name) and name.id == arg.id and isinstance(name.ctx, ast.Store)
            for target in node.targets for name in ast.walk(target))]
        if len(bindings) != 1 or bindings[0].lineno > line or not isinstance(bindings[0].value, ast.Call):
            return ""
        makers.add((bindings[0].lineno, _text(bindings[0].value.func)))
    if len(makers) != 1:
        return ""
    binding_line, maker = makers.pop()
    return ", which %s() returns (line %d)" % (maker, binding_line) if maker else ""
