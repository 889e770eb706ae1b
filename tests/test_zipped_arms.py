"""A chain made before an if/else whose arm makes a second chain, batched after the `if`
(zipped_arms): the head and the tail are written into each arm only where that keeps the meaning.

testdata/single/zipped_arms holds the migrated shapes (drained in test_tf_behaviour) and three
refusals; here the other shapes that must stay as they are, and what the copies are."""
import textwrap

import libcst as cst

from qmigrate import api, zipped_arms
from qmigrate.names import ImportMap

PROGRAM = '''\
import tensorflow as tf

FLAG = True


def batches(files, extra_files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, first = tf.TFRecordReader().read(queue)
{head}    if {test}:
        extra_queue = tf.train.string_input_producer(extra_files, num_epochs=1, shuffle=False)
        _, second = tf.TFRecordReader().read(extra_queue)
        rows = tf.stack([first, second])
    else:
{other}
{tail}    rows_batch = tf.train.batch([rows], batch_size, enqueue_many=True)
    return rows_batch
'''


def _source(head="", test="len(extra_files) != 0", other="rows = tf.expand_dims(first, 0)", tail=""):
    return PROGRAM.format(head=textwrap.indent(head, "    "), test=test, other="        " + other,
                          tail=textwrap.indent(tail, "    "))


def _migrate(tmp_path, **parts):
    path = tmp_path / "pipeline.py"
    path.write_text(_source(**parts))
    [result] = api.migrate([str(path)])
    return result


def _moves(**parts):
    module = cst.parse_module(_source(**parts))
    return zipped_arms.find(module, ImportMap(module))


def test_each_arm_gets_the_first_chain_and_the_batching(tmp_path):
    result = _migrate(tmp_path, head="size = 2 * batch_size\n", tail="capacity = 4 * size\n")
    assert result.changed and b"tf.train" not in result.new_source
    assert result.new_source.count(b"Dataset.from_tensor_slices(files)") == 2
    assert result.new_source.count(b"Dataset.zip(") == 1
    # The copies stand at their statements as written: each line is told once.
    assert [d.code for d in result.diagnostics].count("QM301") == 1
    [move] = _moves(head="size = 2 * batch_size\n", tail="capacity = 4 * size\n")
    assert len(move.head) == 3 and len(move.tail) == 2


def test_a_test_reading_what_the_chain_binds_stays(tmp_path):
    assert _moves(test="first is not None") == []
    assert _moves(head="count = len(files)\n", test="count > 1") == []
    result = _migrate(tmp_path, test="first is not None")
    # (the arm's chain alone may become an iterator)
    assert b"tf.train.batch(" in (result.new_source or (tmp_path / "pipeline.py").read_bytes())


def test_a_test_reading_a_name_the_chain_code_names_stays(tmp_path):
    """`files` is passed to the first producer, which could change it (a list it appends to)."""
    assert _moves(test="len(files) > 1") == []


def test_a_test_reading_a_module_name_stays():
    assert _moves(test="FLAG") == []


def test_an_arm_that_leaves_early_stays():
    assert _moves(other="return None") == []


def test_a_statement_between_the_if_and_the_batching_that_is_not_simple_stays():
    assert _moves(tail="for _ in range(2):\n    pass\n") == []


def test_the_refusal_says_which_condition_failed(tmp_path):
    result = _migrate(tmp_path, test="FLAG")
    assert b"tf.train.batch(" in (result.new_source or (tmp_path / "pipeline.py").read_bytes())
    [message] = {d.message for d in result.diagnostics if d.code == "QM301"}
    assert "reads `FLAG`, not a parameter or local" in message
