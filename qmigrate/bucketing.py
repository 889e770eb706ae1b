"""`tf.contrib.training.bucket_by_sequence_length` as a tf.data pipeline: the element shape and
the bucketing stage.

The queue version (TF 1.8's bucket_ops, read and measured) puts each record in bucket i when
`boundaries[i-1] <= input_length < boundaries[i]` (bucket 0 below the first boundary, the last
at or above the last one), and a bucket emits a batch of `batch_size` when it holds that many.
When the input ends, `allow_smaller_final_batch=True` flushes each bucket's remainder, and
without it the remainders are dropped. It returns `(lengths, tensors)`.

`Dataset.apply(group_by_window(key, reduce, window_size=batch_size))` is the same: a window is
reduced when it holds `batch_size` elements of one key, and the partial windows of every key at
the end of the input. The key is the number of boundaries at or below the length, which is the
queue's bucket index for the strictly increasing boundaries it requires. The reduce is the
batching stage the queue's dequeue was (padded for `dynamic_pad`, remainder dropped unless
`allow_smaller_final_batch`), so static shapes stay those of the queue.
`tf.contrib.data.bucket_by_sequence_length` (1.8) is not used: it always keeps remainders and
loses the static batch dimension.
"""
import re
from typing import Tuple

import libcst as cst

from qmigrate.targets import Target


def element(length: str, element_kind: str, returns: str) -> Tuple[str, str]:
    """The kind of element get_next() gives for a bucketed record, and the record function's
    return: `length, (tensors...)`, the queue's `(lengths, tensors)` once batched.

    Kind "bucket_list" when the queue gave the tensors back as a list (tf.data gives a tuple:
    see `consumed`), "bucket" for a dict. A list of one stays a tuple of one: the queue
    returned `[batch]`, not the tensor itself.
    """
    if element_kind == "dict":
        return "bucket", "%s, %s" % (length, returns)
    if element_kind == "single":
        return "bucket_list", "%s, (%s,)" % (length, returns)
    return "bucket_list", "%s, (%s)" % (length, returns)


def consumed(next_element: str, element_kind: str, target) -> str:
    """What replaces the bucketing call: the next element, with the tensors as a list where
    the queue gave a list and the target does not unpack them (`lengths, (a, b) = ...` takes a
    tuple as well)."""
    if element_kind != "bucket_list":
        return next_element
    if (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
            and isinstance(target.elements[1].value, (cst.Tuple, cst.List))):
        return next_element
    return "(lambda lengths, tensors: (lengths, list(tensors)))(*%s)" % next_element


def _fresh(preferred: str, *texts: str) -> str:
    """A lambda parameter name that none of `texts` (sources the lambda reads) mentions."""
    name, n = preferred, 2
    while any(re.search(r"\b%s\b" % name, text) for text in texts):
        name, n = "%s_%d" % (preferred, n), n + 1
    return name


def window_shapes(window: str, tf: str, target: Target) -> str:
    """The shapes of a group_by_window window: TF 1.15 gives the reduce function a V2 dataset,
    which has no `output_shapes` property (measured), so the compat function wherever it exists."""
    if target.symbols.has("tensorflow.compat.v1.data.get_output_shapes"):
        return "%s.compat.v1.data.get_output_shapes(%s)" % (tf, window)
    return "%s.output_shapes" % window


def bucket_stage(batching, tf: str, target: Target, batch_stage) -> str:
    """The stage after `repeat`: `apply(group_by_window(...))`, batching each bucket with the
    expression `batch_stage(window_name)` gives (the pipeline's own batching, of the window)."""
    boundaries, size = batching.bucket_boundaries, batching.batch_size
    window = _fresh("window", size, tf)
    bucket = _fresh("bucket", size, tf, window)
    reduce = "lambda %s, %s: %s" % (bucket, window, batch_stage(window))
    return "apply(%s(%s, %s, %s))" % (_group_by_window(tf, target), _key(boundaries, tf), reduce, size)


def per_bucket_stage(boundaries: str, sizes: str, tf: str, target: Target, batch_stage) -> str:
    """The stage for `batch_size` given as one size per bucket (`sizes`, the source of a Python
    list of len(boundaries) + 1 sizes): bucket i's windows hold `sizes[i]` records, and the
    expression `batch_stage(window, size)` batches a window by `size` (a scalar int64 tensor).
    The batch dimension is unknown, as the queue's was for a list of sizes."""
    window = _fresh("window", sizes, tf)
    bucket = _fresh("bucket", sizes, tf, window)
    size = "%s.gather(%s.cast(%s, %s.int64), %s)" % (tf, tf, sizes, tf, bucket)
    reduce = "lambda %s, %s: %s" % (bucket, window, batch_stage(window, size))
    return "apply(%s(%s, %s, window_size_func=lambda %s: %s))" % (
        _group_by_window(tf, target), _key(boundaries, tf), reduce, bucket, size)


def _key(boundaries: str, tf: str) -> str:
    """The key function: the number of boundaries at or below the record's length."""
    length, tensors = _fresh("length", boundaries, tf), _fresh("tensors", boundaries, tf)
    return "lambda %s, %s: %s.reduce_sum(%s.cast(%s.less_equal(%s, %s), %s.int64))" % (
        length, tensors, tf, tf, tf, boundaries, length, tf)


def _group_by_window(tf: str, target: Target) -> str:
    module = "contrib.data" if target.group_by_window == "contrib" else "data.experimental"
    return "%s.%s.group_by_window" % (tf, module)
