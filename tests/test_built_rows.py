"""Batching helpers that batch a row built in Python from their parameters (qmigrate/built_rows.py).

The golden program is testdata/towers/built_row (checked by test_golden): a package whose
processing module holds `build_batch(features, label, ...)`, batching `[features] + label` when the
label is a list and `[features, label]` otherwise, and two data-set classes that hand their records
down to it from their `inputs` methods, with a label that is a list or not as the object was made.
Here: what is refused, and under TensorFlow 1.8 the same examples in batches of the same shapes
and structure before and after, for both label forms and both shuffle settings.
"""
import glob
import os
import shutil

import pytest

from conftest import TESTDATA
from qmigrate import api
from qmigrate.diagnostics import Status
from test_golden import migrate_tree
from test_handed_down import _by_name, assert_same_batches, data_dir, drain, script_steps  # noqa: F401 (a fixture)
from tfenv import tf_python

BEFORE = os.path.join(TESTDATA, "towers", "built_row", "before")
POINTS = os.path.join("bench", "inputs", "predefined", "points.py")
PAIRS = os.path.join("bench", "inputs", "predefined", "pairs.py")
PROCESSING = os.path.join("bench", "inputs", "processing.py")
ENTRY = '''from bench.inputs.predefined.points import Points
from bench.inputs.predefined.pairs import Pairs


def points(files, split, batch_size, with_input, num_epochs):
    return Points(files, num_epochs, add_input_to_label=with_input).inputs(split, batch_size)


def pairs(files, split, batch_size, with_input, num_epochs):
    return Pairs(files, num_epochs, add_input_to_label=with_input).inputs(split, batch_size)
'''


def _program(tmp_path, edit=None):
    out = str(tmp_path / "program")
    shutil.copytree(BEFORE, out)
    for name, (old, new) in (edit or {}).items():
        path = os.path.join(out, name)
        with open(path) as handle:
            text = handle.read()
        assert old in text
        with open(path, "w") as handle:
            handle.write(text.replace(old, new))
    return out


def test_the_helper_its_callers_and_the_trainer_migrate_together(tmp_path):
    root = _program(tmp_path)
    results = _by_name(api.migrate([root]), root)
    for name in (POINTS, PAIRS, PROCESSING, os.path.join("bench", "trainer.py")):
        assert results[name].status is Status.MIGRATED, (name, results[name].diagnostics)


LABEL_CALL = ("            label,\n            10,", "            tf.identity(label),\n            10,")


def test_a_label_computed_by_a_call_is_refused(tmp_path):
    """Whether it is a list is tested where the map function returns it, reading it three times."""
    root = _program(tmp_path, {PAIRS: LABEL_CALL})
    results = _by_name(api.migrate([root]), root)
    assert not results[PAIRS].changed and not results[PROCESSING].changed and not results[POINTS].changed
    assert all("build_batch() of processing.py is not followed: not every call of it could be migrated (pairs.py)"
               in d.message for d in results[PAIRS].diagnostics), results[PAIRS].diagnostics


def test_a_label_computed_by_a_call_is_refused_with_why(tmp_path):
    """Alone (its helper in the same module), the caller says why."""
    root = _program(tmp_path)
    with open(os.path.join(root, PROCESSING)) as handle:
        helper = handle.read()
    with open(os.path.join(root, PAIRS)) as handle:
        pairs = handle.read()
    pairs = pairs.replace("from ..processing import build_batch, scale\n", "").replace(*LABEL_CALL)
    helper_code = helper[helper.index("def build_batch"):helper.index("def scale")]
    text = pairs.replace("\n\nclass Pairs", "\n\nscale = abs\n\n\n" + helper_code + "\nclass Pairs")
    text = text.replace("import tensorflow as tf\n", "import multiprocessing\n\nimport tensorflow as tf\n")
    path = str(tmp_path / "alone.py")
    with open(path, "w") as handle:
        handle.write(text)
    result, = api.migrate([path])
    assert not result.changed
    assert any("build_batch() may take `label` as a list of tensors, and it is given `tf.identity(label)`, which is "
               "neither a list display nor a name" in d.message for d in result.diagnostics), result.diagnostics


def test_a_class_deriving_from_both_data_sets_keeps_their_readers(tmp_path):
    """`self._read` in Pairs could reach Points._read through such a class: each `_read` stays for
    the other module, so neither pipeline, nor the helper handed down to them, migrates."""
    root = _program(tmp_path)
    with open(os.path.join(root, "bench", "both.py"), "w") as handle:
        handle.write("from bench.inputs.predefined.points import Points\n"
                     "from bench.inputs.predefined.pairs import Pairs\n\n\n"
                     "class Both(Points, Pairs):\n    pass\n")
    results = _by_name(api.migrate([root]), root)
    assert not results[POINTS].changed and not results[PAIRS].changed and not results[PROCESSING].changed


@pytest.mark.parametrize("function", ("points", "pairs"))
@pytest.mark.parametrize("with_input", (False, True), ids=("label", "label_list"))
@pytest.mark.parametrize("split,num_epochs,expected", [("train", 2, 100), ("test", 1, 50)],
                         ids=("shuffled", "in_order"))
def test_tf1_8_same_examples_before_and_after(function, with_input, split, num_epochs, expected, data_dir,
                                              tmp_path):
    python = tf_python("1.8")
    before = _program(tmp_path)
    after = str(tmp_path / "after")
    migrate_tree(BEFORE, after)
    files = sorted(glob.glob(os.path.join(data_dir, "dict_*")))
    arguments = dict(files=files, split=split, batch_size=10, with_input=with_input, num_epochs=num_epochs)
    old, new = (drain(python, root, function, arguments, tmp_path, label, ENTRY)
                for root, label in ((before, "before"), (after, "after")))
    assert old["kind"] == ("[T, T, T]" if with_input else "[T, T]")
    assert_same_batches(old, new, expected)


def test_tf1_8_the_trainer_runs_as_many_steps_without_queue_runners(data_dir, tmp_path):
    python = tf_python("1.8")
    before = _program(tmp_path)
    after = str(tmp_path / "after")
    migrate_tree(BEFORE, after)
    files = sorted(glob.glob(os.path.join(data_dir, "dict_*")))
    steps = [script_steps(python, root, ["-m", "bench.trainer"] + files) for root in (before, after)]
    assert steps == [10, 10]  # 2 epochs of 50 examples, batches of 10

SAME_MODULE = '''import tensorflow as tf


def build_batch(features, label, batch_size, shuffle):
    if isinstance(label, list):
        row = [features] + label
    else:
        row = [features, label]
    if shuffle:
        return tf.train.shuffle_batch(row, batch_size=batch_size, num_threads=2, capacity=50, min_after_dequeue=20)
    return tf.train.batch(row, batch_size=batch_size, num_threads=2, capacity=50)


def inputs(files, batch_size, with_input):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)})
    label = [parsed['id'], parsed['x']] if with_input else parsed['id']
    return build_batch(parsed['x'], label, batch_size, True)
'''


def test_a_helper_of_the_same_module_takes_the_batch(tmp_path):
    path = str(tmp_path / "same.py")
    with open(path, "w") as handle:
        handle.write(SAME_MODULE)
    result, = api.migrate([path])
    assert result.status is Status.MIGRATED, result.diagnostics
    source = result.new_source.decode()
    compile(source, path, "exec")
    assert "        row = [features, label]\n    return row\n" in source
    assert "return parsed['x'], (tuple(label) if isinstance(label, list) else label)" in source
    assert "num_parallel_calls=2" in source
    assert "list(label_2) if isinstance(label_2, tuple) else label_2" in source
