"""What the migration leaves unread beside a pipeline it migrated goes with it
(qmigrate/dead_readers.py): readers, their options, values only the queue calls read; and only
those."""
import pytest

from qmigrate import api
from test_fresh_receivers import READER

def test_an_unread_reader_stays_where_no_pipeline_migrated(tmp_path):
    path = tmp_path / "lonely.py"
    path.write_text("import tensorflow as tf\n\n\ndef f(queue):\n    reader = tf.TFRecordReader()\n"
                    "    return tf.train.batch([queue.dequeue()], 2)\n")
    [result] = api.migrate([str(path)])
    assert not result.changed


def test_a_reader_read_by_a_nested_function_stays(tmp_path):
    text = READER.replace("        return tf.train.batch([image], self.batch_size)",
                          "        def again(other_queue):\n"
                          "            return local_reader.read(other_queue)\n"
                          "        batch = tf.train.batch([image], self.batch_size)\n"
                          "        return batch, again")
    path = tmp_path / "reader.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    assert result.changed and "make_one_shot_iterator" in result.new_source.decode()
    assert "local_reader = tf.TFRecordReader()" in result.new_source.decode()


OPTIONS = '''import tensorflow as tf


def inputs(files):
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.ZLIB)
    unused = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader(options=options)
    _, serialized = reader.read(queue)
    return tf.train.batch([serialized], 4)
'''


def test_the_options_of_a_reader_that_went_go_too(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(OPTIONS)
    [result] = api.migrate([str(path)])
    new = result.new_source.decode()
    assert 'compression_type="ZLIB"' in new and "options = " not in new
    assert "unused = tf.python_io.TFRecordOptions" in new  # never read: the user's own, left alone


VALUES = '''import tensorflow as tf


def compute(n):
    return n


def inputs(files, batch_size):
    %s
    queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(queue)
    return tf.train.shuffle_batch([serialized], batch_size, capacity=capacity, min_after_dequeue=10)
'''


@pytest.mark.parametrize("line,goes", [
    ("capacity = 10 + 3 * batch_size", True),
    ("capacity = int(max(10, 2.5 * batch_size))", True),
    ("capacity = compute(40)", False),  # a call of the program's: its effects stay
    ("capacity = next(iter([40]))", False),  # not one of the builtins that only compute
])
def test_a_value_only_the_queue_read_goes_when_working_it_out_has_no_effect(tmp_path, line, goes):
    path = tmp_path / "inputs.py"
    path.write_text(VALUES % line)
    [result] = api.migrate([str(path)])
    new = result.new_source.decode()
    assert "shuffle_and_repeat(10)" in new
    assert (line not in new) == goes


def test_a_value_the_function_never_read_is_the_users_and_stays(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(VALUES % "capacity = 40\n    spare = 3 * batch_size")
    [result] = api.migrate([str(path)])
    new = result.new_source.decode()
    assert "spare = 3 * batch_size" in new and "capacity = 40" not in new


CHAINED = '''import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(queue)
    examples_per_epoch = 800
    min_queue_examples = int(0.4 * examples_per_epoch)
    %s
    return tf.train.shuffle_batch([serialized], batch_size, capacity=min_queue_examples + 3 * batch_size,
                                  min_after_dequeue=10)
'''


def test_the_values_only_dropped_lines_read_go_with_them(tmp_path):
    # examples_per_epoch was read only by min_queue_examples, which only the queue read
    path = tmp_path / "inputs.py"
    path.write_text(CHAINED % "")
    [result] = api.migrate([str(path)])
    new = result.new_source.decode()
    assert "shuffle_and_repeat(10)" in new
    assert "min_queue_examples" not in new and "examples_per_epoch" not in new


@pytest.mark.parametrize("kept,line", [
    # still read by other code: it stays, and so does what it reads
    ("print(min_queue_examples)", "min_queue_examples = int(0.4 * examples_per_epoch)"),
    # locals() may read any name of the function
    ("print(locals())", "examples_per_epoch = 800"),
])
def test_a_value_still_read_or_maybe_read_stays(tmp_path, kept, line):
    path = tmp_path / "inputs.py"
    path.write_text(CHAINED % kept)
    [result] = api.migrate([str(path)])
    new = result.new_source.decode()
    assert "shuffle_and_repeat(10)" in new and line in new and "examples_per_epoch = 800" in new


def test_a_value_bound_twice_stays(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(CHAINED.replace("    examples_per_epoch = 800\n",
                                    "    examples_per_epoch = 800\n    if batch_size > 8:\n"
                                    "        examples_per_epoch = 1600\n") % "")
    [result] = api.migrate([str(path)])
    new = result.new_source.decode()
    assert "min_queue_examples" not in new and "examples_per_epoch = 800" in new


PARAGRAPHS = '''import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(serialized, {"x": tf.FixedLenFeature([], tf.int64)})

    capacity = 10 + 3 * batch_size
    size = batch_size
    batch = tf.train.batch([parsed["x"]], size, capacity=capacity)
    return batch
'''


def test_a_dropped_line_leaves_its_paragraph_break(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(PARAGRAPHS)
    [result] = api.migrate([str(path)])
    new = result.new_source.decode()
    assert "capacity" not in new
    # the blank line that parted `capacity` from the code above now parts what follows it
    assert "\n\n    size = batch_size\n" in new, new
