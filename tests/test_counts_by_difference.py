"""Facts of a module's versions counted from what they do not share: name loads from the module
they were made from (cstutil.module_loads with a base), and a function's own returns
(summary.own_returns) without looking into expressions. Each equals the count of everything."""
import ast
import pathlib
from collections import Counter

import libcst as cst
import pytest

from qmigrate import cstutil, engine, summary
from tests.conftest import TESTDATA

SOURCES = sorted(pathlib.Path(TESTDATA).rglob("*.before.py")) + sorted(pathlib.Path(TESTDATA).rglob("before/*.py"))


def test_there_are_legacy_programs():
    assert len(SOURCES) > 100


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_loads_of_a_rewrite_counted_from_its_base_are_its_loads(path):
    source = path.read_bytes()
    analysis = engine.analyse(str(path), source, engine.Options())
    old, new = analysis.module, analysis.new_module
    base_loads = Counter(cstutil.name_uses(old).loads)
    assert +cstutil.module_loads(new, old, base_loads) == +Counter(cstutil.name_uses(new).loads)


def test_a_changed_statement_is_counted_and_a_shared_one_is_not(monkeypatch):
    old = cst.parse_module("import tensorflow as tf\n\ndef f():\n    return tf.a(tf.b)\n\ndef g():\n    return h\n")
    new = old.with_changes(body=[old.body[0], cst.parse_statement("def f():\n    return 1\n"), old.body[2]])
    counted = []
    names = cstutil._TOP_LEVEL_NAMES._compute
    monkeypatch.setattr(cstutil._TOP_LEVEL_NAMES, "_compute", lambda s, c: counted.append(s) or names(s, c))
    cstutil._TOP_LEVEL_NAMES.forget()
    loads = cstutil.module_loads(new, old, Counter(cstutil.name_uses(old).loads))
    assert loads == +Counter(cstutil.name_uses(new).loads) and not loads["tf"] and loads["h"] == 1
    assert counted == [old.body[1], new.body[1]]


def _all_returns(body):
    out, stack = [], list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            out.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return out


def test_own_returns_are_those_of_a_walk_of_everything():
    code = ("def f(x):\n    if x:\n        return 1\n    try:\n        y = [lambda: 2 for _ in x]\n    except E:\n"
            "        return 3\n    finally:\n        pass\n    def g():\n        return 4\n    while x:\n"
            "        with x:\n            return 5\n    match x:\n        case 1:\n            return 6\n    return 7\n")
    functions = [node for node in ast.walk(ast.parse(code)) if isinstance(node, ast.FunctionDef)]
    functions += [node for path in SOURCES for node in ast.walk(ast.parse(path.read_bytes()))
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for function in functions:
        assert list(summary.own_returns(function.body)) == _all_returns(function.body)
    assert [r.value.value for r in summary.own_returns(functions[0].body)] == [1, 3, 5, 6, 7]

