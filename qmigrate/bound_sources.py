"""Producer arguments the written dataset would evaluate twice, bound to a name once.

A shuffled producer's file list (or a slice producer's first tensor) appears twice in the head of
the dataset: in `from_tensor_slices(files)` and in the shuffle's buffer size (`tf.size(files)`).
The producer evaluated it once. An expression that is not a plain value (a call such as
`sorted(glob.glob(...))` or `obj.files()`, a TensorFlow op such as `tf.matching_files(pattern)`)
could give another list, do its work twice, or make two ops: it is bound to a fresh name in a
statement before the dataset, and the dataset uses the name.

Contract: `bind(pipeline, fresh, tf, target)` returns (statements to write before the dataset's
statements, the pipeline that uses the bound names). Names, dotted attributes, literals, and
lists, tuples and subscripts of those are plain values, used as they are; an unshuffled source
uses its argument once and is left as it is.
"""
import dataclasses
from typing import Callable, List, Tuple

import libcst as cst

from qmigrate.model import FileSource, Pipeline, SliceSource, ZipSource
from qmigrate.targets import Target

_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Name)


def _plain(expression: cst.BaseExpression) -> bool:
    """A value read, not computed: evaluating it twice gives the same value and does nothing."""
    if isinstance(expression, _LITERALS):
        return True
    if isinstance(expression, cst.Attribute):
        return _plain(expression.value)
    if isinstance(expression, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _plain(e.value) for e in expression.elements)
    if isinstance(expression, cst.Subscript):
        return _plain(expression.value) and all(
            isinstance(s.slice, cst.Index) and _plain(s.slice.value) for s in expression.slice)
    return False


def _is_plain(source: str) -> bool:
    try:
        return _plain(cst.parse_expression(source))
    except cst.ParserSyntaxError:
        return False


def _bound_source(source, fresh: Callable[[str], str], tf: str, target: Target, out: List[str]):
    """`source` using bound names; the binding statements appended to `out`."""
    if not source.shuffle:  # the argument is used once
        return source
    if isinstance(source, FileSource) and source.data_sources is None:
        files = source.files
        if source.pattern is not None:
            files = "%s.%s(%s)" % (tf, target.matching_files, source.pattern)
        if _is_plain(files):
            return source
        name = fresh("files")
        out.append("%s = %s" % (name, files))
        return dataclasses.replace(source, files=name, pattern=None)
    if isinstance(source, SliceSource) and source.tensors and not _is_plain(source.tensors[0]):
        name = fresh("rows")
        out.append("%s = %s" % (name, source.tensors[0]))
        return dataclasses.replace(source, tensors=(name,) + tuple(source.tensors[1:]))
    return source


def bind(pipeline: Pipeline, fresh: Callable[[str], str], tf: str, target: Target) -> Tuple[List[str], Pipeline]:
    """(statements binding the computed producer arguments, the pipeline using their names)."""
    out: List[str] = []
    source = pipeline.source
    if isinstance(source, ZipSource):
        parts = tuple(dataclasses.replace(part, source=_bound_source(part.source, fresh, tf, target, out))
                      for part in source.parts)
        bound = dataclasses.replace(source, parts=parts)
    else:
        bound = _bound_source(source, fresh, tf, target, out)
    if not out:
        return [], pipeline
    return out, dataclasses.replace(pipeline, source=bound)
