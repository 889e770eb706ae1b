"""A producer dequeued directly: `x = tf.train.string_input_producer(ids).dequeue()`, no reader.

Its rows (example ids, paths, any strings) are the records, as a slice producer's are: the chain
goes on from the dequeue like `x, = tf.train.slice_input_producer([ids])`, and the rows become
`Dataset.from_tensor_slices(ids)`, shuffled over the whole set every epoch unless
`shuffle=False`, repeated `num_epochs` times, seeded with `seed` (`Rows.model`).

The dequeued row may also be stored into a dict made empty just before (`d = {}` ...
`d['id'] = producer.dequeue()`): the dict is then the per-record structure (`DictTarget`), made
anew in the map function, where the dequeue becomes `d['id'] = <the row>`.
"""
import builtins
import keyword
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import libcst as cst

from qmigrate.model import SliceSource
from qmigrate.rules import rule_for
from qmigrate.rules.base import Unsupported, is_none
from qmigrate.rules.producers import InputProducer, RangeInputProducer, StringInputProducer

ROW_PRODUCERS = (StringInputProducer, InputProducer)


@dataclass(frozen=True)
class Rows:
    """The producer's rule, seen as a slice producer of its one tensor (the `_follow` contract:
    `bind` and `model`)."""

    rule: type
    tf: Optional[str] = None  # the module's name for TensorFlow: a range producer's rows are tf.range(limit)

    def bind(self, call: cst.Call) -> Dict[str, cst.BaseExpression]:
        return self.rule.bind(call)

    def model(self, bound, source, resolve) -> SliceSource:
        if self.rule is RangeInputProducer:
            return _range_rows(bound, source, self.tf)
        files = self.rule.model(bound, source, resolve)
        if files.pattern is not None:
            raise Unsupported("its rows come from match_filenames_once(), a variable a one-shot iterator "
                              "cannot capture")
        return SliceSource(tensors=(files.files,), num_epochs=files.num_epochs, shuffle=files.shuffle,
                           seed=files.seed)


def _range_rows(bound, source, tf: str) -> SliceSource:
    """`range_input_producer(limit, num_epochs, shuffle, seed)` is `input_producer(tf.range(limit))`
    in TensorFlow itself: its rows are the int32 tensor `tf.range(limit)`, sliced, shuffled anew
    every epoch unless `shuffle=False`, repeated `num_epochs` times."""
    if "limit" not in bound:
        raise Unsupported("it has no limit argument")
    if not is_none(bound.get("shared_name")):
        raise Unsupported("it sets `shared_name`, which has no tf.data counterpart")
    shuffle = bound.get("shuffle")
    if shuffle is not None and not (isinstance(shuffle, cst.Name) and shuffle.value in ("True", "False")):
        raise Unsupported("its `shuffle=` is not a literal")
    epochs, seed = bound.get("num_epochs"), bound.get("seed")
    return SliceSource(tensors=("%s.range(%s)" % (tf, source(bound["limit"])),),
                       num_epochs=None if is_none(epochs) else source(epochs),
                       shuffle=shuffle is None or shuffle.value == "True", seed=None if is_none(seed) else source(seed))


def dequeued(value, resolve, producers, ranges: bool = False) -> Optional[Tuple[Optional[str], type, cst.Call]]:
    """(the queue's name or None when made in place, the producer's rule, its call) for
    `producer(...).dequeue()` or `queue.dequeue()` of a queue in `producers` (name -> (index, rule,
    call)); `dequeue(name=...)` names the op only. None for anything else. `ranges`: a
    range_input_producer's dequeue is one too (its indices are the rows)."""
    kinds = ROW_PRODUCERS + ((RangeInputProducer,) if ranges else ())
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "dequeue"):
        return None
    if any(arg.keyword is None or arg.keyword.value != "name" for arg in value.args):
        return None
    queue = value.func.value
    if isinstance(queue, cst.Call):
        rule = rule_for(resolve(queue.func))
        return (None, rule, queue) if rule in kinds else None
    if isinstance(queue, cst.Name) and queue.value in producers and producers[queue.value][1] in kinds:
        return queue.value, producers[queue.value][1], producers[queue.value][2]
    return None


@dataclass(frozen=True)
class DictTarget:
    """`d[key] = <dequeue>`: the dict `d` and the key's source."""

    name: str
    key: str


def dict_target(target) -> Optional[DictTarget]:
    """The DictTarget of `d["key"]` (a plain name subscripted by one string literal), else None."""
    if not (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and len(target.slice) == 1):
        return None
    index = target.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)):
        return None
    return DictTarget(target.value.value, index.value.value)


def is_empty_dict(value, module_names) -> bool:
    """`{}` or `dict()` (the builtin, not shadowed at module level)."""
    if isinstance(value, cst.Dict):
        return not value.elements
    return (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict"
            and not value.args and "dict" not in module_names)


def row_name(key: str) -> str:
    """The map function's parameter for the row stored under `key` (a string literal's source):
    the key itself when it is a plain identifier that shadows no builtin, else `row`."""
    text = key.strip("'\"")
    if text.isidentifier() and not keyword.iskeyword(text) and not hasattr(builtins, text):
        return text
    return "row"
