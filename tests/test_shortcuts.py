"""Shortcuts that skip work on a module, each checked against the work done in full: name loads
of a rewrite counted from the module it was made from (cstutil.module_loads with a base), a
function's own returns found without looking into expressions (summary.own_returns), tower
loop inputs looked for only in blocks with a loop that places devices (towers.find_consumers),
and a rewrite's import map taken from its base when no statement it changed imports anything."""
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


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_the_import_map_of_a_rewrite_is_its_own(path):
    from qmigrate.names import ImportMap
    analysis = engine.analyse(str(path), path.read_bytes(), engine.Options())
    new = analysis.new_module
    assert ImportMap.of_version(new, analysis.module, analysis.imports).aliases == ImportMap(new).aliases


def test_an_import_in_a_changed_statement_makes_a_new_map():
    from qmigrate.names import ImportMap
    old = cst.parse_module("import tensorflow as tf\n\ndef f():\n    return 1\n")
    base_map = ImportMap(old)
    same = old.with_changes(body=[old.body[0], cst.parse_statement("def f():\n    return 2\n")])
    assert ImportMap.of_version(same, old, base_map) is base_map
    other = old.with_changes(body=[old.body[0], cst.parse_statement("def f():\n    import numpy as np\n")])
    assert ImportMap.of_version(other, old, base_map).aliases == {"tf": "tensorflow", "np": "numpy"}
    swapped = old.with_changes(body=[old.body[1], old.body[0]])
    assert ImportMap.of_version(swapped, old, base_map) is not base_map


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
            "        with x:\n            return 5\n    match x:\n        case 1:\n"
            "            return 6\n    return 7\n")
    functions = [node for node in ast.walk(ast.parse(code)) if isinstance(node, ast.FunctionDef)]
    functions += [node for path in SOURCES for node in ast.walk(ast.parse(path.read_bytes()))
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for function in functions:
        assert list(summary.own_returns(function.body)) == _all_returns(function.body)
    assert [r.value.value for r in summary.own_returns(functions[0].body)] == [1, 3, 5, 6, 7]



DEVICE_SOURCES = sorted(path for path in pathlib.Path(TESTDATA).rglob("*.py") if b"device" in path.read_bytes())


def _consumers_of_every_block(module, imports):
    """towers.find_consumers without its skip of blocks with no device-placing loop."""
    from qmigrate import blocks, towers
    found = []
    for function, body in towers._roots(module):
        leaves = blocks.flatten(body, body)
        uses = towers._LeafLoads(leaves, lambda: Counter(cstutil.name_uses(cst.IndentedBlock(body=body)).loads))
        for index, leaf in enumerate(leaves):
            consumer = towers._consumer_at(leaves, index, imports, function, module, uses)
            if consumer is not None:
                found.append(consumer)
            found += towers._per_tower_calls(leaf.original, imports, function, module)
    return found


@pytest.mark.parametrize("path", DEVICE_SOURCES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_tower_consumers_are_found_in_loops_that_place_devices_only(path):
    from qmigrate import towers
    from qmigrate.names import ImportMap
    module = cst.parse_module(path.read_bytes())
    imports = ImportMap(module)
    assert towers.find_consumers(module, imports) == _consumers_of_every_block(module, imports)


def test_there_are_tower_loops():
    from qmigrate import towers
    from qmigrate.names import ImportMap
    found = [c for path in DEVICE_SOURCES for module in [cst.parse_module(path.read_bytes())]
             for c in towers.find_consumers(module, ImportMap(module))]
    assert len(found) > 20
