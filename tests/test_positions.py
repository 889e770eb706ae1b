"""positions.NodePositions places every node where libcst's PositionProvider does."""
import glob
import os

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from conftest import TESTDATA
from qmigrate.positions import NodePositions, stdlib_tree

TRICKY = b'''# a header comment
import os; import sys


@decorator(
    1)
@other
def f(a,
      b):
    """Doc."""
    x = (1,
         2); y = 3
    if a:
        pass
    elif b:  # an elif is the If of the else in both trees
        z = [a
             for a in b]
    else:
        for item in b:
            continue
        else:
            pass
    try:
        with open(a) as handle, open(b):
            return handle.read(
                10)
    except (IOError, OSError) as error:
        raise
    except Exception:
        pass
    else:
        pass
    finally:
        del x
    while a:
            break  # a deeper indentation of its own


class Outer(object):
  class Inner:
    def method(self):
      return lambda v: v + \\
          1
  attribute = {'k':
               'v'}
if True: a = 1; b = 2
'''


def _assert_same(source: bytes) -> int:
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = NodePositions(module, stdlib_tree(source))
    assert positions._placed or not module.body, "the top-level statements did not pair"
    inside = [node for node in expected if positions._owner_of(node) is not None]
    for node in inside:
        where = expected[node]
        assert positions.span(node) == (where.start.line, where.start.column, where.end.line), node
    assert positions._whole is None  # every node of a statement placed around it, not from the whole module
    for node, where in expected.items():  # the module's own (its header comments...): from the whole module
        assert positions.span(node) == (where.start.line, where.start.column, where.end.line), node
    return len(inside)


def test_tricky_layouts():
    # 163 nodes placed around their statement; the tokens (whitespace, commas, brackets: ~170
    # more) are not indexed, and placed from the whole module when asked about (checked above).
    assert _assert_same(TRICKY) > 150


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(TESTDATA, "**", "*.py"), recursive=True))[::7])
def test_goldens(path):
    with open(path, "rb") as handle:
        _assert_same(handle.read())


def test_without_a_stdlib_tree_the_whole_module_is_resolved():
    module = cst.parse_module(TRICKY)
    node = module.body[-1]
    positions = NodePositions(module, None)
    assert positions.span(node) == (46, 0, 46)
    assert positions._whole is not None
