"""A random draw made before the chain for its per-record code moves into the map function
(record_draws.py): the queue's enqueue ran it once per record; a map function capturing it
would hold one value, and a one-shot iterator cannot capture it at all."""
from qmigrate import api
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


def next_batch(files, batch_size, sides):
{draw}
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    pair = read_one(filename_queue, side)
    return tf.train.batch([pair], batch_size=batch_size, allow_smaller_final_batch=True)
'''

DRAW = "    side = tf.constant(sides)\n    side = tf.random_shuffle(side)[0]"


def _migrate(folder, draw=DRAW, after=""):
    folder.mkdir(exist_ok=True)
    (folder / "reader.py").write_text(READER.format(draw=draw) + after)
    results = api.migrate([str(folder)], Options(), write=True)
    assert not [r for r in results if r.error]
    return results[0], (folder / "reader.py").read_text()


def test_the_draw_and_the_constant_it_reads_move_into_the_map_function(tmp_path):
    result, new = _migrate(tmp_path / "out")
    assert result.changed and not result.remaining
    function = new[new.index("def parse_record"):new.index("dataset =")]
    assert "tf.random_shuffle(" in function and "tf.constant(" in function
    assert "tf.random_shuffle(" not in new.replace(function, "")


def test_a_draw_also_read_after_the_batch_stays_and_the_pipeline_with_it(tmp_path):
    # The code after the batch saw its own draw at each step: the pipeline stays, with the reason.
    draw = "    side = tf.random_uniform([], 2, 9, tf.int32)\n    tf.summary.scalar('side', side)"
    result, new = _migrate(tmp_path / "out", draw=draw)
    assert not result.changed
    assert any("made at line" in d.message and "stateful op" in d.message for d in result.remaining)


def test_a_variable_is_never_moved(tmp_path):
    draw = "    side = tf.Variable(3, trainable=False)"
    result, _ = _migrate(tmp_path / "out", draw=draw)
    assert not result.changed
    assert any("`side`" in d.message for d in result.remaining)


def test_each_record_draws_its_own_value_before_and_after(tmp_path):
    """Under TF 1.8: 60 records, 2 epochs, batches of 8: each id twice, the sides drawn per record
    (several values within a batch), from the same choices, before and after."""
    python = tf_python("1.8")
    source, out = tmp_path / "source", tmp_path / "out"
    source.mkdir()
    (source / "reader.py").write_text(READER.format(draw=DRAW))
    result, _ = _migrate(out)
    assert result.changed and not result.remaining
    for folder in (source, out):
        batches = drain(python, folder, tmp_path, "reader", "reader.next_batch(files, 8, [2, 3, 4, 5, 6, 7])")
        check_drawn_per_record(batches, {2, 3, 4, 5, 6, 7}, folder)
