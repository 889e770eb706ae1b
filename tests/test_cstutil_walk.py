"""cstutil.walk stands for libcst's visit: the same hooks on the same nodes, in the same order."""
import glob
import os

import libcst as cst
import pytest

from qmigrate import cstutil
from tests.conftest import TESTDATA

_NODE_CLASSES = sorted({kind for kind in vars(cst).values()
                        if isinstance(kind, type) and issubclass(kind, cst.CSTNode) and kind.__name__[0] != "_"},
                       key=lambda kind: kind.__name__)


def _recorder(with_tokens: bool, skipping=()):
    """A visitor class with a recording visit_/leave_ hook for every node class (tokens optional),
    whose visit hook returns False (skip the children) for the classes in `skipping`."""
    hooks = {}
    for kind in _NODE_CLASSES:
        if kind in cstutil._TOKENS and not with_tokens:
            continue
        name = kind.__name__
        hooks["visit_" + name] = lambda self, node, name=name: self.log.append(("visit", name, id(node))) or (
            False if name in skipping else None)
        hooks["leave_" + name] = lambda self, node, name=name: self.log.append(("leave", name, id(node)))
    hooks["__init__"] = lambda self: setattr(self, "log", [])
    return type("Recorder", (cst.CSTVisitor,), hooks)


class _Dispatching(cst.CSTVisitor):
    """Overrides on_visit/on_leave: sees every node, tokens included."""

    def __init__(self):
        self.log = []

    def on_visit(self, node):
        self.log.append(("visit", id(node)))
        return not isinstance(node, cst.Lambda)

    def on_leave(self, node):
        self.log.append(("leave", id(node)))


class _PerField(cst.CSTVisitor):
    """A per-field hook, which only libcst's own visit calls: walk must hand over to it."""

    def __init__(self):
        self.log = []

    def visit_Call_func(self, node):
        self.log.append(id(node))


VISITORS = [_recorder(False, {"Attribute", "Param"}), _recorder(True, {"Subscript"}), _Dispatching, _PerField]
SOURCES = sorted(glob.glob(os.path.join(TESTDATA, "**", "*.py"), recursive=True))


def test_there_are_sources_to_walk():
    assert len(SOURCES) > 50


@pytest.mark.parametrize("visitor_class", VISITORS, ids=lambda kind: kind.__name__)
def test_walk_calls_the_hooks_libcst_calls(visitor_class):
    for path in SOURCES:
        with open(path, "rb") as handle:
            module = cst.parse_module(handle.read())
        expected, walked = visitor_class(), visitor_class()
        module.visit(expected)
        cstutil.walk(module, walked)
        assert walked.log == expected.log, path
        assert expected.log or visitor_class is _PerField
