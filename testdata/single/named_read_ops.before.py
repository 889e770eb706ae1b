"""Pipelines that name their ops: `reader.read(queue, name=...)` in the input function and in a
reader helper. The names only label the queue ops, which the migration removes."""
import tensorflow as tf


def read_example(filename_queue):
  reader = tf.TFRecordReader(name='example_reader')
  _, serialized = reader.read(filename_queue, name='read_example')
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'], features['id']


def helper_inputs(files, batch_size):
  filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False, name='files')
  x, example_id = read_example(filename_queue)
  return tf.train.batch([x, example_id], batch_size=batch_size, name='batch')


def named_inputs(files, batch_size):
  filename_queue = tf.train.string_input_producer(files, num_epochs=1, name='files')
  reader = tf.TFRecordReader(name='reader')
  _, serialized = reader.read(filename_queue, name='read')
  features = tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})
  return tf.train.shuffle_batch([features['id']], batch_size=batch_size, capacity=40, min_after_dequeue=10,
                                name='shuffled')
