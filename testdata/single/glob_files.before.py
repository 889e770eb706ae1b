"""Training files found by a glob pattern when the graph starts (match_filenames_once)."""
import os

import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def pattern_inputs(data_dir, batch_size):
    pattern = os.path.join(data_dir, 'dict_*.tfrecords')
    filenames = tf.train.match_filenames_once(pattern)
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=2, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size=batch_size)


def counted_inputs(data_dir, batch_size):
    """The variable is summarised too: it stays for the summary, the dataset lists the pattern itself
    (a one-shot iterator cannot capture the variable)."""
    filenames = tf.train.match_filenames_once(os.path.join(data_dir, 'dict_*.tfrecords'))
    tf.summary.scalar('input_files', tf.size(filenames))
    filename_queue = tf.train.string_input_producer(filenames)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    return tf.train.batch([serialized], batch_size=batch_size)
