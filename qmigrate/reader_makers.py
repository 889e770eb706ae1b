"""Reader makers: functions and methods that only return a new TensorFlow reader.

    class ImageSet(object):
        def reader(self):
            # (a docstring may come first)
            return tf.TFRecordReader()

`reader = images.reader()` (the object proven an instance of exactly that class, receivers.py)
or `reader = make_reader()` then makes the reader `tf.TFRecordReader()` would: a loop of
readers may be read with the dataset of that reader's class. The maker itself stays as it is
(other code may call it); only the caller's chain stops calling it.

Contract of `find`: a Maker only for a function or method whose body, its docstring aside, is
one `return <reader class>()` with no arguments (nothing the caller would have to evaluate in
its own module), the class resolved by the maker's own module's imports to a TensorFlow reader
class with a rule (rules/readers.py). Anything else is no maker (None). Never raises.
"""
from dataclasses import dataclass, field
from typing import Dict, Iterable, Optional

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.rules import READERS, rule_for


@dataclass(frozen=True)
class Maker:
    """A function or method that returns `<rule's reader class>()`; `spelled`: the class as the
    maker's module writes it, for reasons."""

    rule: type
    spelled: str
    call: cst.Call = field(compare=False)  # the reader constructor it returns, in its own module


REASON = ("it is returned by %s(), which only makes a reader and stays as it is for whoever calls it (a loop of "
          "readers that calls it is read with the dataset of its class instead)")
TODO = "remove %s() once nothing calls it"


def find(function: cst.FunctionDef, imports: ImportMap) -> Optional[Maker]:
    """The Maker `function` is, or None (see the module's contract)."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    statements = [stmt for stmt in body if not cstutil.is_docstring(stmt)]
    if len(statements) != 1:
        return None
    small = cstutil.single_small(statements[0])
    if not (isinstance(small, cst.Return) and isinstance(small.value, cst.Call) and not small.value.args):
        return None
    rule = rule_for(imports.resolve(small.value.func))
    if rule not in READERS:
        return None
    return Maker(rule, cst.Module([]).code_for_node(small.value.func), small.value)


def of_module(module: cst.Module, imports: ImportMap) -> Dict[str, Maker]:
    """The module's makers: top-level functions (`f`) and plain methods of top-level classes
    (`Class.method`: not decorated, defined once in the class, with a `self`)."""
    found: Dict[str, Maker] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and not stmt.decorators:
            maker = find(stmt, imports)
            if maker is not None:
                found[stmt.name.value] = maker
        elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            methods = [m for m in stmt.body.body if isinstance(m, cst.FunctionDef)]
            for method in methods:
                if method.decorators or not method.params.params or sum(
                        m.name.value == method.name.value for m in methods) != 1:
                    continue
                maker = find(method, imports)
                if maker is not None:
                    found["%s.%s" % (stmt.name.value, method.name.value)] = maker
    return found


def explain(makers: Dict[str, Maker], reasons: Dict[int, str], todo: Dict[int, str], fixed, kept: set) -> None:
    """Say why each maker's reader stays (in `reasons` and `todo`, by id of the call), unless
    `fixed` holds it or it has a reason already; and count it among the `kept` calls, which
    build no queue of their own: a reader is made only for a caller, whose read is queue code
    of its own (so the queue runners stay for it)."""
    for key, maker in makers.items():
        if id(maker.call) not in fixed:
            reasons.setdefault(id(maker.call), REASON % key)
            todo.setdefault(id(maker.call), TODO % key)
            kept.add(id(maker.call))


def names(keys: Iterable[str]) -> frozenset:
    """What calls of the makers `keys` (`f`, `Class.method`) are spelled with: `f` and `method`."""
    return frozenset(key.rsplit(".", 1)[-1] for key in keys)


def may_make(call: cst.BaseExpression, spelled: frozenset) -> bool:
    """Whether `call` may be a maker's: `f()` or `x.method()` with no arguments, the name among
    `spelled` (names()). The recogniser proves which function or method it calls."""
    if not (isinstance(call, cst.Call) and not call.args):
        return False
    func = call.func
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    return name in spelled
