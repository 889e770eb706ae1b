"""A per-record structure an input function returns beside its batches (returned_records): kept in
structure when every caller of the migrated files discards it, else the pipeline stays with why."""
import ast
import os
import subprocess

import pytest

from conftest import TESTDATA
from qmigrate import api, returned_records
from tfenv import tf_python

INPUT = '''import numpy as np
import tensorflow as tf


def make_ops(ids, batch_size):
    ops = {}
    ops['id'] = tf.train.string_input_producer(tf.convert_to_tensor(ids)).dequeue()
    ops['n'] = tf.py_func(lambda i: np.int64(len(i)), [ops['id']], tf.int64)
    ops['n'].set_shape([])
    batch_ops = tf.train.batch(ops, batch_size=batch_size)
    return ops, batch_ops
'''


def _migrate(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}


def test_first_use_sees_every_mention_but_discarding_calls_and_imports():
    tree = ast.parse("from m import f\nimport m\n_, b = f(1)\n_, c = m.f(2)\nx, y = f(3)\nz = f(4)\ng = f\n")
    assert returned_records.first_use(tree, "f", 0, 2) == 5
    tree = ast.parse("from m import f\n_, b = f(1)\n(_, c) = f(2)\n")
    assert returned_records.first_use(tree, "f", 0, 2) is None
    assert returned_records.first_use(tree, "f", 1, 2) == 2  # `_` in the other place


def test_callers_elsewhere_that_discard_it_let_the_pipeline_migrate(tmp_path):
    caller = "from inputs import make_ops\n\n_, batches = make_ops(['a', 'bb'], 2)\n"
    results = _migrate(tmp_path, {"inputs.py": INPUT, "train.py": caller})
    output = results["inputs.py"].new_source.decode()
    assert "tf.train" not in output and "ops = dataset.make_one_shot_iterator().get_next()" in output
    assert output.rstrip().endswith("return ops, batch_ops")
    assert results["train.py"].new_source is None


def test_a_caller_elsewhere_that_uses_it_keeps_the_pipeline_and_says_where(tmp_path):
    caller = "import inputs\n\nrecord, batches = inputs.make_ops(['a', 'bb'], 2)\nprint(record)\n"
    results = _migrate(tmp_path, {"inputs.py": INPUT, "train.py": caller})
    assert results["inputs.py"].new_source is None
    reasons = [d.message for d in results["inputs.py"].diagnostics if not d.fixed]
    assert reasons and all("train.py:3 may use that result" in message for message in reasons), reasons


def test_no_caller_in_the_set_keeps_the_structure(tmp_path):
    output = _migrate(tmp_path, {"inputs.py": INPUT})["inputs.py"].new_source.decode()
    assert "ops = dataset.make_one_shot_iterator().get_next()" in output


CHECK = '''import importlib.util, sys
import tensorflow as tf
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
example, batches = m.id_example_ops(m.IdTable(10), 4)
for name, part in (("example", example), ("batches", batches)):
    print(name, sorted((k, v.dtype.name, v.get_shape().as_list()) for k, v in part.items()))
with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    record, batch = sess.run([example, batches])
    print("record", record["id"] in batch["id"] or record["id"].startswith(b"ex"))
    coord.request_stop()
    coord.join(threads)
'''


def test_the_returned_record_keeps_its_structure_under_tf18(tmp_path):
    """The migrated function returns a dict of the same keys, dtypes and static shapes, which still
    evaluates to one record (of its own iterator) under TF 1.8."""
    python = tf_python("1.8")
    script = tmp_path / "check.py"
    script.write_text(CHECK)
    outputs = []
    for kind in ("before", "after"):
        path = os.path.join(TESTDATA, "single", "dequeued_ids.%s.py" % kind)
        done = subprocess.run([python, str(script), path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=300, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and "record True" in outputs[1], outputs


READER = '''import tensorflow as tf


def parsed_and_batched(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1)
    _, serialized = tf.TFRecordReader().read(queue)
    features = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
    batches = tf.train.batch(features, batch_size=batch_size, enqueue_many=%s)
    return features, batches


def batches_only(files):
    _, batches = parsed_and_batched(files, 4)
    return batches
'''


def test_any_pipeline_returning_its_record_dict_keeps_it_but_not_when_batching_unbatches_it(tmp_path):
    output = _migrate(tmp_path, {"reader.py": READER % "False"})["reader.py"].new_source.decode()
    assert "features = dataset.make_one_shot_iterator().get_next()" in output
    (tmp_path / "reader.py").unlink()
    result = _migrate(tmp_path, {"reader2.py": READER % "True"})["reader2.py"]
    assert "features = dataset" not in (result.new_source or b"").decode()
