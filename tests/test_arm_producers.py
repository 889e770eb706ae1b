"""A producer made before an `if` whose arms read its queue (arm_producers): it is made in each arm
that reads it, only where nothing observable runs between and the queue is read nowhere else.

testdata/single/arm_producer holds the migrated shapes (drained in test_tf_behaviour); here the
shapes that must stay as they are, and the names repeated across arms (blocks.exclusive_loads)."""
import textwrap

import libcst as cst

from qmigrate import api, arm_producers, blocks
from qmigrate.names import ImportMap

PROGRAM = '''\
import tensorflow as tf


def batches(files, training):
    queue = tf.train.string_input_producer(files, num_epochs=1)
{between}    if {test}:
        reader = tf.TFRecordReader()
        _, value = reader.read(queue)
        return tf.train.batch([value], 4)
    else:
        reader = tf.TFRecordReader()
        _, value = reader.read(queue)
        return tf.train.shuffle_batch([value], 4, capacity=20, min_after_dequeue=5)
{after}'''


def _migrate(tmp_path, between="", test="training", after=""):
    path = tmp_path / "pipeline.py"
    path.write_text(PROGRAM.format(between=textwrap.indent(between, "    "), test=test, after=after))
    [result] = api.migrate([str(path)])
    return result


def test_both_arms_get_the_producer(tmp_path):
    result = _migrate(tmp_path, between="def unused(x):\n    return x\n")
    assert result.changed and b"string_input_producer" not in result.new_source
    assert result.new_source.count(b"Dataset.from_tensor_slices(files)") == 2
    assert [d.code for d in result.diagnostics].count("QM101") == 1  # the copies stand at one line


def test_a_test_that_calls_something_keeps_the_producer(tmp_path):
    result = _migrate(tmp_path, test="len(files) > 1")
    assert not result.changed


def test_a_statement_between_that_runs_keeps_the_producer(tmp_path):
    result = _migrate(tmp_path, between="files.append('extra')\n")
    assert not result.changed


def test_a_decorated_definition_between_keeps_the_producer(tmp_path):
    result = _migrate(tmp_path, between="@register\ndef unused(x):\n    return x\n")
    assert not result.changed


def test_a_queue_read_after_the_if_keeps_the_producer(tmp_path):
    result = _migrate(tmp_path, test="training", after="    print(queue)\n")
    assert not result.changed


def test_a_queue_read_in_the_test_is_no_move():
    module = cst.parse_module(PROGRAM.format(between="", test="queue is not None", after=""))
    assert arm_producers.find(module, ImportMap(module)) == []


def test_arms_inside_a_loop_are_not_exclusive():
    """Each iteration runs one arm, but the next may run the other: it reads what this one bound."""
    module = cst.parse_module("for i in range(2):\n    if i:\n        a = x\n    else:\n        b = a\n")
    loop = module.body[0]
    branch = loop.body.body[0]
    assert blocks.exclusive_loads([module, loop, loop.body, branch, branch.body]) == {}
    plain = cst.parse_module("if c:\n    a = x\nelse:\n    b = a\n")
    branch = plain.body[0]
    assert blocks.exclusive_loads([plain, branch, branch.body])["a"] == 1


MANY = '''\
import tensorflow as tf

queue = tf.train.string_input_producer(["a.tfrecords"], num_epochs=2)


def decode(filename_queue):
    reader = tf.TFRecordReader()
    _, value = reader.read(filename_queue)
    return value


if many:
    reader = tf.TFRecordReader()
    values = []
    for _ in range(100):
        _, value = reader.read(queue)
        values.append(value)
    batch = tf.train.shuffle_batch([values], 10, capacity=300, min_after_dequeue=50, enqueue_many=True)
else:
    value = decode(queue)
    batch = tf.train.shuffle_batch([value], 10, capacity=300, min_after_dequeue=50)
'''


def test_an_arm_reading_many_records_per_step_migrates_with_groups(tmp_path):
    """One reader read n times per run of the enqueue, batched with enqueue_many=True: records in
    groups of n across epoch ends, the last one cut short lost (group_reads.py); both arms migrate,
    each with its copy of the producer, and only the grouping arm groups."""
    path = tmp_path / "pipeline.py"
    path.write_text(MANY)
    [result] = api.migrate([str(path)])
    assert result.changed
    assert not [d for d in result.diagnostics if not d.fixed and not d.note]
    text = result.new_source.decode()
    many, other = text.split("\nelse:\n")
    assert "dataset.repeat(2)\n" in many and "batch_and_drop_remainder(100)" in many
    assert many.index("repeat(2)") < many.index("batch_and_drop_remainder(100)") < many.index("unbatch()") \
        < many.index("shuffle(50)") < many.index("batch_and_drop_remainder(10)")
    assert "(100)" not in other and "unbatch" not in other and "shuffle_and_repeat(50, 2)" in other
    assert "reader.read" not in text.split("\nif many:")[1]


def test_an_arm_reading_many_records_per_step_without_enqueue_many_stays_and_says_why(tmp_path):
    """Batched without enqueue_many=True, each example would be the whole group: that arm stays,
    the other migrates with its copy of the producer."""
    path = tmp_path / "pipeline.py"
    path.write_text(MANY.replace(", enqueue_many=True", ""))
    [result] = api.migrate([str(path)])
    assert result.changed
    left = [d for d in result.diagnostics if not d.fixed and not d.note]
    assert sorted((d.line, d.code) for d in left if d.code in ("QM101", "QM201", "QM302")) == [
        (3, "QM101"), (13, "QM201"), (18, "QM302")]
    why = ("the loop reads 100 records in a row into `values` with the one reader `reader`, made outside it, and "
           "batches that list without enqueue_many=True")
    assert all(why in d.message for d in left if d.code in ("QM101", "QM201", "QM302"))
    fixed = sorted((d.line, d.code) for d in result.diagnostics if d.fixed)
    assert (3, "QM101") in fixed and (21, "QM302") in fixed