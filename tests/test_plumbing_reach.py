"""Queue-runner removal goes only into the statements on the way to what it removes
(cstutil.statements_holding): the same result as a visit of every statement, the rest kept as it was."""
import pathlib

import libcst as cst
import pytest

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.rules import queue_runners
from tests.conftest import TESTDATA

SOURCES = sorted(path for path in pathlib.Path(TESTDATA).rglob("*.py")
                 if b"start_queue_runners" in path.read_bytes() or b"Coordinator" in path.read_bytes())


def test_there_are_programs_with_runners():
    assert len(SOURCES) > 20


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_removal_within_reach_is_a_visit_of_everything(path, monkeypatch):
    module = cst.parse_module(path.read_bytes())
    reached = queue_runners.remove_plumbing(module, ImportMap(module))
    monkeypatch.setattr(cstutil, "statements_holding", lambda node, ids: None)
    everywhere = queue_runners.remove_plumbing(module, ImportMap(module))
    assert reached[0].code == everywhere[0].code and reached[1:] == everywhere[1:]
    if reached[1]:
        assert reached[0].code != module.code
    kept = [s for s in reached[0].body if any(cst.Module([]).code_for_node(s) == cst.Module([]).code_for_node(o)
                                              for o in module.body)]
    assert all(any(s is o for o in module.body) for s in kept)


def test_statements_holding_names_the_way_down():
    module = cst.parse_module("x = 1\ndef f():\n    if a:\n        y = 2\n    z = 3\nclass C:\n    w = 4\n")
    function = module.body[1]
    branch = function.body.body[0]
    target = branch.body.body[0]
    assert cstutil.statements_holding(module, {id(target)}) == {
        id(module), id(function), id(function.body), id(branch), id(branch.body), id(target)}
    assert cstutil.statements_holding(module, set()) == set()


def test_holds_statements_is_isinstance_of_the_containers():
    module = cst.parse_module("import os\nif a:\n    pass\nelse:\n    x = [y for y in z]\n"
                              "try:\n    pass\nfinally:\n    pass\n")
    nodes = []

    class Every(cst.CSTVisitor):
        def on_visit(self, node):
            nodes.append(node)
            return True

    module.visit(Every())
    assert len({type(node) for node in nodes}) > 15
    for node in nodes:
        assert cstutil.holds_statements(node) == isinstance(node, cstutil.STATEMENT_CONTAINERS)
