"""String literals that expect the error message of a closed queue, which tf.data never raises.

A test that drains a queue pipeline often checks how it ends:
`assertRaisesOpError('is closed and has insufficient elements ...')`. Once the pipeline it reads
is a dataset, the last run raises OutOfRangeError with the iterator's message, "End of
sequence", and that assertion fails although the data is the same."""
from typing import List

import libcst as cst

from qmigrate import cstutil

CLOSED_QUEUE = "is closed and has insufficient elements"


def worth_scanning(source: bytes) -> bool:
    return CLOSED_QUEUE.encode() in source


def find(module: cst.Module) -> List[cst.CSTNode]:
    """The string literals (an implicit concatenation as one) that hold the closed queue's message."""
    found, inside = [], set()
    for node in cstutil.nodes_of(module, (cst.ConcatenatedString, cst.SimpleString)):
        if id(node) in inside:
            continue  # a part of a concatenation already found
        parts = _nodes(node) if isinstance(node, cst.ConcatenatedString) else [node]
        if any(isinstance(part, cst.SimpleString) and CLOSED_QUEUE in part.value for part in parts):
            found.append(node)
            inside.update(id(n) for n in cstutil.nodes_of(node, (cst.ConcatenatedString, cst.SimpleString)))
    return found


def _nodes(node: cst.ConcatenatedString) -> List[cst.BaseExpression]:
    out = []
    for side in (node.left, node.right):
        out += _nodes(side) if isinstance(side, cst.ConcatenatedString) else [side]
    return out
