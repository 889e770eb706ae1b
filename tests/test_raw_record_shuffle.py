"""A RandomShuffleQueue of the records as read (before any per-record code: Inception's queue of
serialized examples) is shuffled before the map, so the buffer holds what the queue held, not
the decoded records (recognise's raw_shuffle, RecordReader.record_shuffle_test). Measured under
TF 1.8 (bench/record_shuffle_bench.py): a buffer of 2,000 records decoded to 768 KB each peaks at
1.7 GB after the map, 0.17 GB before it. TF behaviour: the handbuilt_chain, handbuilt_chosen,
handbuilt_reader_loop and record_arms cases of tests/test_tf_behaviour.py."""
import textwrap

from qmigrate import api

CHAIN = '''\
import tensorflow as tf


def batches(files, batch_size, train=True):
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, value = reader.read(filename_queue)
    {before_enqueue}
    {queue}
    enqueue = examples.enqueue([value])
    tf.train.add_queue_runner(tf.train.QueueRunner(examples, [enqueue]))
    serialized = examples.dequeue()
    parsed = tf.parse_single_example(serialized, {{'x': tf.FixedLenFeature([3], tf.float32)}})
    return tf.train.batch([parsed['x']], batch_size)
'''

SHUFFLING = "examples = tf.RandomShuffleQueue(100, 40, [tf.string], seed=7)"


def _migrated(tmp_path, before_enqueue="pass", queue=SHUFFLING):
    path = tmp_path / "chain.py"
    path.write_text(CHAIN.format(before_enqueue=before_enqueue, queue=queue))
    result, = api.migrate([str(path)])
    assert result.changed and not result.remaining
    return result.new_source.decode()


def _position(text, stage):
    return next(i for i, line in enumerate(text.splitlines()) if stage in line)


def test_the_records_as_read_are_shuffled_before_the_map(tmp_path):
    new = _migrated(tmp_path)
    assert "shuffle_and_repeat(40, seed=7)" in new
    assert _position(new, "shuffle_and_repeat(") < _position(new, ".map(parse_record")


def test_records_the_code_changed_before_the_queue_are_shuffled_after_the_map(tmp_path):
    # The queue held what the per-record code made: the map makes it, then the buffer mixes it.
    new = _migrated(tmp_path, before_enqueue="value = tf.identity(value)")
    assert _position(new, ".map(parse_record") < _position(new, "shuffle_and_repeat(")


def test_a_queue_chosen_by_a_test_shuffles_under_that_test_before_the_map(tmp_path):
    queue = textwrap.indent(
        "if train:\n    examples = tf.RandomShuffleQueue(100, 40, [tf.string])\nelse:\n"
        "    examples = tf.FIFOQueue(100, [tf.string])", "    ").lstrip()
    new = _migrated(tmp_path, queue=queue)
    assert "    if train:\n        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(40))\n" \
           "    else:\n        dataset = dataset.repeat()\n" in new
    assert _position(new, "shuffle_and_repeat(") < _position(new, ".map(parse_record")
