"""A random draw a caller in another module passes for a per-record parameter becomes a function
the map function calls for each record (drawn_arguments.py); the queue's enqueue drew it anew for
each record, and a one-shot iterator cannot capture it."""
import ast
import os

import pytest

from qmigrate import api, drawn_arguments
from qmigrate.captured_params import STATEFUL_CALLS
from qmigrate.engine import Options
from drawn_drains import check_drawn_per_record, drain
from tfenv import tf_python

READER = '''\
import tensorflow as tf


def read_one(filename_queue, side):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    record_id = tf.string_to_number(serialized, tf.int32)
    return tf.stack([record_id, side])


def next_batch(files, batch_size, side):
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    pair = read_one(filename_queue, side)
    return tf.train.batch([pair], batch_size=batch_size, allow_smaller_final_batch=True)
'''

TRAIN = '''\
import tensorflow as tf

import reader


def batches(files, pyramid):
    with tf.name_scope('get_batch'):
        if pyramid:
            sides = tf.constant([2, 3, 4, 5, 6, 7])
            side = tf.random_shuffle(sides)[0]
        else:
            side = 4
        {extra}
        return reader.next_batch(files, 8, side)
'''


def _migrate(folder, extra="pass", reader=READER):
    folder.mkdir(exist_ok=True)
    (folder / "reader.py").write_text(reader)
    (folder / "train.py").write_text(TRAIN.format(extra=extra))
    results = api.migrate([str(folder)], Options(), write=True)
    assert not [r for r in results if r.error]
    return {os.path.basename(r.path): r for r in results}


def test_the_callers_draw_becomes_a_function_the_map_calls(tmp_path):
    results = _migrate(tmp_path / "out")
    assert results["reader.py"].changed and not results["reader.py"].remaining
    train = (tmp_path / "out" / "train.py").read_text()
    assert "            side = lambda: tf.random_shuffle(sides)[0]\n" in train
    assert "            side = 4\n" in train  # a value is passed as before
    new = (tmp_path / "out" / "reader.py").read_text()
    assert "        side_2 = side() if callable(side) else side\n" in new


@pytest.mark.parametrize("extra", [
    "tf.summary.scalar('side', side)",  # the caller reads the draw itself too: it would get the function
    "sides = tf.constant([8, 9])",  # what the draw reads changes before the call
])
def test_a_draw_the_caller_cannot_hand_over_keeps_the_pipeline(tmp_path, extra):
    results = _migrate(tmp_path / "out", extra=extra)
    assert not results["reader.py"].changed
    assert "lambda" not in (tmp_path / "out" / "train.py").read_text()
    assert any("`side`" in d.message and "random op" in d.message for d in results["reader.py"].remaining)


def test_a_pipeline_that_cannot_take_the_function_keeps_the_draws_as_they_were(tmp_path):
    # The pipeline's own code outside the map reads the parameter: it would get the function.
    reader = READER.replace("    return tf.train.batch(", "    tf.summary.scalar('side', side)\n    return tf.train.batch(")
    results = _migrate(tmp_path / "out", reader=reader)
    assert not results["reader.py"].changed
    assert "lambda" not in (tmp_path / "out" / "train.py").read_text()
    assert any("random draw" in d.message for d in results["reader.py"].remaining)


def _lines(source, argument_line):
    tree = ast.parse(source)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "next_batch")
    return drawn_arguments.draw_lines(tree, call, call.args[2], STATEFUL_CALLS)


def test_which_draws_are_proven():
    assert _lines(TRAIN.format(extra="pass"), 0) == (10,)
    assert _lines(TRAIN.format(extra="pass").replace("tf.random_shuffle(sides)[0]", "tf.placeholder(tf.int32)"),
                  0) is None  # a placeholder is fed once per step, for the program
    assert _lines(TRAIN.format(extra="side = side + 1"), 0) is None  # read before the call
    assert _lines(TRAIN.format(extra="pass").replace("side = 4", "side = tf.Variable(4)"), 0) is None


def test_each_record_draws_its_own_value_before_and_after(tmp_path):
    """Under TF 1.8: 60 records, 2 epochs, batches of 8: each id twice; with the pyramid the sides
    drawn per record (several values within a batch) from the same choices, before and after;
    without it 4 for every record."""
    python = tf_python("1.8")
    source, out = tmp_path / "source", tmp_path / "out"
    source.mkdir()
    (source / "reader.py").write_text(READER)
    (source / "train.py").write_text(TRAIN.format(extra="pass"))
    results = _migrate(out)
    assert results["reader.py"].changed and not results["reader.py"].remaining
    assert "lambda: tf.random_shuffle(" in (out / "train.py").read_text()
    for folder in (source, out):
        batches = drain(python, folder, tmp_path, "train", "train.batches(files, sys.argv[3] == 'pyramid')", "pyramid")
        check_drawn_per_record(batches, {2, 3, 4, 5, 6, 7}, folder)
        fixed = drain(python, folder, tmp_path, "train", "train.batches(files, sys.argv[3] == 'pyramid')", "fixed")
        assert {pair[1] for batch in fixed for pair in batch} == {4}, folder
