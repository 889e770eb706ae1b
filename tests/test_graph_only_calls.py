"""Per-record code that makes a summary or a collection entry stays with its chain: in the map
function it would be made in the function's graph, and the program's merge_all() and
get_collection() would lose it without an error (recognise._check_graph_only_calls)."""
import pytest

from qmigrate import api

PIPELINE = '''import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, value = reader.read(queue)
    image = tf.decode_raw(value, tf.uint8)
    %s
    return tf.train.batch([image], batch_size)
'''


@pytest.mark.parametrize("statement,spelled", [
    ("tf.summary.histogram('pixels', image)", "tf.summary.histogram"),
    ("tf.histogram_summary('pixels', image)", "tf.histogram_summary"),
    ("tf.add_to_collection('images', image)", "tf.add_to_collection"),
])
def test_a_summary_or_collection_entry_keeps_the_chain(tmp_path, statement, spelled):
    path = tmp_path / "inputs.py"
    path.write_text(PIPELINE % statement)
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
    batch = next(d for d in result.diagnostics if d.code == "QM301")
    assert "calls `%s` (line 9)" % spelled in batch.message


def test_other_per_record_code_still_moves(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(PIPELINE % "image = tf.reshape(image, [-1])")
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed
