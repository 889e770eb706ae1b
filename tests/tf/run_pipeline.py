"""Build one input function's pipeline and drain it (run under a TF 1.x virtualenv, or TF 2 in
graph mode through tf.compat.v1).

usage: run_pipeline.py MODULE_PATH FUNCTION ARGS_JSON MAX_BATCHES OUT_JSON
Works for queue and tf.data pipelines alike: it starts queue runners, which is a no-op for tf.data.
Writes {"kind", "static_shapes", "batch_shapes", "examples": [fingerprint per example, in order],
"leading": [the first tensor's values per batch, when a numeric vector]} (bucketed batches lead with their lengths).
A function returning a Dataset (an Estimator input_fn) is read through a one-shot iterator.
"""
import hashlib
import importlib.util
import json
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.util import nest

if tf.__version__.startswith("2."):
    tf = tf.compat.v1
    tf.disable_eager_execution()


def load(path):
    spec = importlib.util.spec_from_file_location("pipeline_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def flatten(structure):
    """(a description of the structure, its tensors in a fixed order); a Dataset gives its next element."""
    if any(cls.__name__ in ("Dataset", "DatasetV2") for cls in type(structure).__mro__):  # V1 or V2
        return flatten(tf.data.make_one_shot_iterator(structure).get_next()
                       if hasattr(tf.data, "make_one_shot_iterator") else structure.make_one_shot_iterator().get_next())
    return describe(structure), nest.flatten(structure)


def describe(structure):
    """The shape of a nested structure: dicts by sorted key, lists and tuples told apart."""
    if isinstance(structure, dict):
        return "{%s}" % ", ".join("%s: %s" % (k, describe(structure[k])) for k in sorted(structure))
    if isinstance(structure, list):
        return "[%s]" % ", ".join(describe(v) for v in structure)
    if isinstance(structure, tuple):
        return "(%s)" % ", ".join(describe(v) for v in structure)
    return "T"


def row_bytes(row):
    """The bytes of one example's tensor; strings by value (an object array's bytes are pointers)."""
    row = np.asarray(row)
    if row.dtype == object:
        return repr(row.tolist()).encode()
    return np.ascontiguousarray(row).tobytes()


def main(path, function, args_json, max_batches, out_path):
    tf.set_random_seed(1)
    module = load(path)
    outputs = getattr(module, function)(**json.loads(args_json))
    if callable(outputs):  # a factory gave an Estimator input_fn: call it as the Estimator would
        outputs = outputs()
    kind, tensors = flatten(outputs)
    static = [t.get_shape().as_list() if t.get_shape().ndims is not None else None for t in tensors]
    batch_shapes, examples, leading = [], [], []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            for _ in range(max_batches):
                values = sess.run(tensors)
                batch_shapes.append([list(np.shape(v)) for v in values])
                first = np.asarray(values[0])
                # Only a vector (bucket lengths): a whole image batch in JSON costs seconds a run.
                leading.append(first.tolist() if first.dtype.kind in "iuf" and first.ndim == 1 else None)
                for row in range(len(values[0])):
                    digest = hashlib.sha1()
                    for value in values:
                        digest.update(row_bytes(value[row]))
                    examples.append(digest.hexdigest()[:16])
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    with open(out_path, "w") as handle:
        json.dump({"kind": kind, "static_shapes": static, "batch_shapes": batch_shapes,
                   "examples": examples, "leading": leading}, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
