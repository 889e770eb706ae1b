"""Reads the examples of TFRecord files, one at a time."""
import tensorflow as tf


def read(files, num_epochs=2):
    if not isinstance(files, list):
        files = [files]
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    # the id travels with the example
    example_id = parsed['id']
    x = parsed['x'] * 0.5
    return x, example_id
