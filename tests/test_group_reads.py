"""One reader read n times in a loop into a list batched with enqueue_many=True (group_reads.py):
what migrates, what is refused and why. The grouping's meaning is drained under TF in
test_tf_behaviour (grouped_reads-grouped_batches)."""
import libcst as cst
import pytest

from qmigrate import api, group_reads

HEAD = '''\
import tensorflow as tf


def batches(files, batch_size):
  queue = tf.train.string_input_producer(files, num_epochs=2)
  reader = tf.TFRecordReader()
  records = []
  for _ in range(10):
    _, value = reader.read(queue)
%s    records.append(%s)
  batch = %s
  return batch
'''


def _migrate(tmp_path, body="", element="value", batch="tf.train.batch([records], batch_size, enqueue_many=True)"):
    path = tmp_path / "pipeline.py"
    path.write_text(HEAD % (body, element, batch))
    [result] = api.migrate([str(path)])
    left = [d for d in result.diagnostics if not d.fixed and not d.note]
    return result, left


@pytest.mark.parametrize("batch", [
    "tf.train.batch([records], batch_size, enqueue_many=True)",
    "tf.train.batch([tf.stack(records)], batch_size, enqueue_many=True)",
    "tf.train.batch([tf.stack(records, axis=0)], batch_size, enqueue_many=True)",
    "tf.train.shuffle_batch([records], batch_size, 100, 20, enqueue_many=True)",
])
def test_the_list_or_its_stack_batched_with_enqueue_many_migrates_in_groups(tmp_path, batch):
    result, left = _migrate(tmp_path, batch=batch)
    assert not left and result.changed
    text = result.new_source.decode()
    assert "reader.read" not in text and "records = []" not in text and "records.append" not in text
    stages = ["repeat(2)", "batch_and_drop_remainder(10)", "unbatch()", "batch_and_drop_remainder(batch_size)"]
    assert [text.index(stage) for stage in stages] == sorted(text.index(stage) for stage in stages)
    assert "shuffle_and_repeat" not in text  # repeated before the grouping: the batcher only shuffles


def test_per_record_code_in_the_loop_becomes_the_map_function(tmp_path):
    """The appended element is returned as the one tensor the batcher packed from it."""
    result, left = _migrate(tmp_path, body="    parsed = tf.decode_raw(value, tf.uint8)\n", element="parsed")
    assert not left
    text = result.new_source.decode()
    assert "parsed = tf.decode_raw(value, tf.uint8)\n    return tf.convert_to_tensor(parsed)" in text
    assert text.index("unbatch()") < text.index("map(parse_record")


@pytest.mark.parametrize("version,group,unbatch", [
    ("1.8", "apply(tf.contrib.data.batch_and_drop_remainder(10))", "apply(tf.contrib.data.unbatch())"),
    ("1.15", "batch(10, drop_remainder=True)", "apply(tf.data.experimental.unbatch())"),
    ("2", "batch(10, drop_remainder=True)", "unbatch()"),
])
def test_the_grouping_is_spelled_for_the_target(tmp_path, version, group, unbatch):
    from qmigrate.engine import Options
    from qmigrate.targets import TARGETS

    path = tmp_path / "pipeline.py"
    path.write_text(HEAD % ("", "value", "tf.train.batch([records], batch_size, enqueue_many=True)"))
    [result] = api.migrate([str(path)], Options(target=TARGETS[version]))
    text = result.new_source.decode()
    assert "dataset = dataset.repeat(2)\n  dataset = dataset.%s\n  dataset = dataset.%s\n" % (group, unbatch) in text


@pytest.mark.parametrize("batch,why", [
    ("tf.train.batch([records], batch_size)", "batches that list without enqueue_many=True: each example is the "
                                              "whole group"),
    ("tf.train.batch([tf.stack(records, axis=1)], batch_size, enqueue_many=True)",
     "batched as `tensors` other than `[records]` or `[tf.stack(records)]`"),
    ("tf.train.batch([records, tf.zeros([10])], batch_size, enqueue_many=True)",
     "batched as `tensors` other than"),
    ("tf.train.batch_join([records], batch_size)", "batched by a *_join"),
])
def test_other_batchings_of_the_list_are_refused_with_the_reason(tmp_path, batch, why):
    result, left = _migrate(tmp_path, batch=batch)
    assert not result.changed
    assert {d.code for d in left} >= {"QM101", "QM201"}
    assert all("the loop reads 10 records in a row into `records` with the one reader `reader`" in d.message
               and why in d.message for d in left)


def test_a_loop_whose_reads_differ_is_refused_with_the_reason(tmp_path):
    result, left = _migrate(tmp_path, element="value + str(_)")
    assert not result.changed and left
    assert all("made outside it, but the loop's body uses its variable `_`" in d.message for d in left)


def test_a_reader_read_again_after_the_loop_is_refused(tmp_path):
    result, left = _migrate(tmp_path, batch="tf.train.batch([records], batch_size, enqueue_many=True)\n"
                                            "  _, more = reader.read(queue)")
    assert not result.changed and left


def _expr(text):
    return cst.parse_expression(text)


def _resolve(node):
    return {"tf.stack": "tensorflow.stack"}.get(cst.Module([]).code_for_node(node), "")


@pytest.mark.parametrize("text,packed", [
    ("[rows]", True), ("(rows,)", True), ("[tf.stack(rows)]", True), ("[tf.stack(rows, 0)]", True),
    ("[tf.stack(rows, axis=0, name='s')]", True), ("[tf.stack(rows, 1)]", False), ("[other]", False),
    ("[rows, rows]", False), ("rows", False), ("[*rows]", False), ("[tf.stack(*rows)]", False),
    ("[tf.stack(values=rows)]", False), ("[(rows)]", False),
])
def test_packed_tells_the_list_itself_or_its_stack(text, packed):
    assert group_reads.packed(_expr(text), "rows", _resolve) is packed
