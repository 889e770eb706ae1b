"""Reads examples from TFRecord files and hands each one down to the shared batching."""
import tensorflow as tf

from .batching import make_batches


def _parse(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return parsed['x'], parsed['id']


def train_inputs(files, batch_size, num_epochs=2):
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs)
    features, example_id = _parse(filename_queue)
    features = features * 0.5
    return make_batches(features, example_id, batch_size, shuffle=True)


def split_inputs(files, batch_size, split):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    features, example_id = _parse(filename_queue)
    return make_batches(features, example_id, batch_size, split == 'train', min_queue_examples=10)
