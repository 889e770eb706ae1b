"""Helpers a pipeline reads through: forwarding helpers (the queue passed on, any depth) and
record-source helpers (producer and reader made inside, the record parsed and returned)."""
from qmigrate import api


def _migrate(tmp_path, text):
    path = tmp_path / "pipeline.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


SOURCE = '''import tensorflow as tf


def load(kind, files, size):
    queue = tf.train.string_input_producer(files, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    x = tf.parse_single_example(value, {kind: tf.FixedLenFeature([size], tf.float32)})[kind]
    return x


def inputs(files):
    x = load('x', files, 3)
    return tf.train.batch([x], batch_size=4)
'''


def test_a_record_source_keeps_the_parameters_its_parsing_reads_in_their_order(tmp_path):
    output = _migrate(tmp_path, SOURCE).new_source.decode()
    assert "def load(value, kind, size):" in output
    assert "x = load(value, 'x', 3)" in output
    assert "TFRecordDataset" in output and "string_input_producer" not in output


def test_a_record_source_whose_queue_is_read_again_is_not_followed(tmp_path):
    text = SOURCE.replace("    return x\n", "    tf.summary.scalar('left', queue.size())\n    return x\n")
    result = _migrate(tmp_path, text)
    assert result.new_source is None


FORWARD = '''import tensorflow as tf

RECORD_BYTES = 8


def read_record(filename_queue):
    reader = tf.FixedLengthRecordReader(record_bytes=RECORD_BYTES)
    _, value = reader.read(filename_queue)
    return tf.decode_raw(value, tf.uint8)


def decode(filename_queue):
    RECORD_BYTES = 4
    raw = read_record(filename_queue)
    return tf.cast(raw, tf.float32) * RECORD_BYTES


def inputs(files):
    queue = tf.train.string_input_producer(files)
    x = decode(queue)
    return tf.train.batch([x], batch_size=4)
'''


def test_a_module_name_the_forwarding_helper_rebinds_stops_the_move(tmp_path):
    """The reader's record size is the module's RECORD_BYTES; moved through decode(), which binds
    its own RECORD_BYTES, it would mean 4: the pipeline stays, and says why."""
    result = _migrate(tmp_path, FORWARD)
    assert result.new_source is None
    reader = [d for d in result.diagnostics if d.code == "QM202"]
    assert reader and "`RECORD_BYTES` names a module-level value in read_record" in reader[0].message
    assert "read_record() into decode()" in reader[0].message


def test_a_module_name_the_calling_function_rebinds_stops_the_move(tmp_path):
    text = FORWARD.replace("    RECORD_BYTES = 4\n", "").replace(
        "    queue = tf.train", "    RECORD_BYTES = 2\n    queue = tf.train")
    result = _migrate(tmp_path, text)
    assert result.new_source is None


def test_the_forwarded_reader_arguments_reach_the_dataset(tmp_path):
    output = _migrate(tmp_path, FORWARD.replace("    RECORD_BYTES = 4\n", "")).new_source.decode()
    assert "FixedLengthRecordDataset(filename, record_bytes=RECORD_BYTES)" in output
    assert "def decode(value):\n    raw = read_record(value)" in output


def test_a_record_source_whose_caller_is_not_followed_reads_in_place_and_says_why_the_caller_stops(tmp_path):
    """No caller links the source (here its batch is built inside a larger statement): its own read
    becomes a dataset's get_next() in place, the caller's queue batching those records, and the
    caller is told what to change."""
    text = SOURCE.replace("    return tf.train.batch([x], batch_size=4)\n",
                          "    return [tf.train.batch([x], batch_size=4)]\n")
    result = _migrate(tmp_path, text)
    output = result.new_source.decode()
    assert "def load(kind, files, size):" in output  # its callers' calls are unchanged
    assert "value = dataset.make_one_shot_iterator().get_next()" in output
    assert "string_input_producer" not in output and "return [tf.train.batch([x], batch_size=4)]" in output
    batch = [d for d in result.diagnostics if d.code == "QM301"]
    assert batch and "nested in a larger expression" in batch[0].message, batch


CHOSEN = '''import tensorflow as tf


def read_tfrecords(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    return tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']


def read_lines(filename_queue):
    reader = tf.TextLineReader()
    _, line = reader.read(filename_queue)
    return tf.string_to_number(line)


def inputs(binary, files, batch_size):
    if binary:
        read = read_tfrecords
    else:
        read = read_lines
    x = read(tf.train.string_input_producer(files))
    queue = tf.train.string_input_producer(files)
    x = read(queue)
    return tf.train.batch([x], batch_size=batch_size)
'''


def test_a_reader_helper_chosen_at_run_time_reads_with_the_reader_of_each_helper(tmp_path):
    text = CHOSEN.replace("    x = read(tf.train.string_input_producer(files))\n", "")
    output = _migrate(tmp_path, text).new_source.decode()
    assert "def read_tfrecords(serialized):" in output and "def read_lines(line):" in output
    assert ("    if read is read_tfrecords:\n        dataset = dataset.flat_map(tf.data.TFRecordDataset)\n"
            "    else:\n        dataset = dataset.flat_map(tf.data.TextLineDataset)\n") in output


def test_a_chosen_reader_helper_whose_other_call_stays_is_not_migrated(tmp_path):
    """One call of the variable cannot be followed (its queue is made in the call): migrating the
    helpers would hand that call's queue to a helper that takes a record."""
    result = _migrate(tmp_path, CHOSEN)
    assert result.new_source is None
    reader = [d for d in result.diagnostics if d.code == "QM201"]
    assert reader and "`read` is called 2 times, and not every call could be rewritten" in reader[0].message


def test_a_chosen_reader_helper_variable_used_otherwise_is_not_followed(tmp_path):
    text = CHOSEN.replace("    x = read(tf.train.string_input_producer(files))\n", "    print(read)\n")
    assert _migrate(tmp_path, text).new_source is None


SHARED = '''import tensorflow as tf


def images(files_a, files_b):
    queue_a = tf.train.string_input_producer(files_a)
    queue_b = tf.train.string_input_producer(files_b)
    reader = tf.WholeFileReader()
    _, image_a = reader.read(queue_a)
    _, image_b = reader.read(queue_b)
    return image_a, image_b
'''


def test_whole_file_reads_of_one_reader_from_two_queues_become_two_datasets(tmp_path):
    output = _migrate(tmp_path, SHARED).new_source.decode()
    assert "WholeFileReader" not in output and output.count("make_one_shot_iterator().get_next()") == 2


def test_a_shared_reader_one_of_whose_reads_stays_is_kept_with_every_read(tmp_path):
    text = SHARED.replace("    return image_a, image_b\n", "    tf.summary.scalar('left', queue_b.size())\n"
                          "    return image_a, image_b\n")
    result = _migrate(tmp_path, text)
    assert result.new_source is None
    # queue_a's read alone could be rewritten: it stays, with the shared reader, and says why.
    producer = [d for d in result.diagnostics if d.code == "QM101" and d.line == 5]
    assert producer and "the reader `reader` is read 2 times" in producer[0].message, producer


def test_a_tfrecord_reader_shared_by_two_queues_is_not_rewritten(tmp_path):
    """A TFRecord reader keeps its place in a file across reads: reads of two queues are not
    independent, and are left as they are."""
    text = SHARED.replace("tf.WholeFileReader()", "tf.TFRecordReader()")
    assert _migrate(tmp_path, text).new_source is None


SHAPED = '''import tensorflow as tf


def read_example(queue, side):
    shape = {"height": side, "width": side, "depth": 3}
    reader = tf.FixedLengthRecordReader(record_bytes=1 + shape["height"] * shape["width"] * shape["depth"])
    _, value = reader.read(queue)
    return tf.decode_raw(value, tf.uint8)


def inputs(files, side, batch_size):
    queue = tf.train.string_input_producer(files)
    example = read_example(queue, side)
    return tf.train.batch([example], batch_size)
'''


def test_a_dict_the_reader_arguments_read_moves_as_the_values_they_read(tmp_path):
    """`shape["height"]` of `shape = {...}` moves to the caller as the value it reads, not as the
    whole dict display once per key."""
    result = _migrate(tmp_path, SHAPED)
    new = result.new_source.decode()
    assert "record_bytes=1 + side * side * 3)" in new, new
    # not the dict display once per key; and the helper's own dict, which only its reader read,
    # goes with the reader (dead_readers)
    assert new.count('"height"') == 0


def test_a_dict_changed_before_the_reader_is_not_moved(tmp_path):
    text = SHAPED.replace('    reader = tf.FixedLengthRecordReader(', '    shape["depth"] = 1\n    reader = '
                          'tf.FixedLengthRecordReader(')
    result = _migrate(tmp_path, text)
    assert not result.changed
    assert any("`shape` is computed inside read_example" in d.message for d in result.remaining)


def test_a_helper_defined_twice_at_the_top_is_no_helper(tmp_path):
    # The property harvester's mutant (seed 41): `def file_queue` written twice, the first a
    # docstring only; the queue-source helper was rewritten at both places (an internal error).
    import os
    from conftest import TESTDATA
    with open(os.path.join(TESTDATA, "single", "queue_source_helper.before.py")) as handle:
        source = handle.read()
    head = "def file_queue(data_dir, patterns=('dict_*',), capacity=16, num_epochs=None):\n"
    assert source.count(head) == 1
    path = tmp_path / "sources.py"
    path.write_text(source.replace(head, head + '  """Its queue."""\n' + head))
    result, = api.migrate([str(path)])
    assert result.error is None
    assert b"string_input_producer" in (result.new_source or result.old_source)
