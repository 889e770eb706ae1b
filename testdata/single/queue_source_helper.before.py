"""A helper that globs the data files and returns their producer's queue; its callers read the
queue through a reader helper (once, or in a loop of readers for batch_join) and batch. Migrated,
the helper returns the file names, and each caller builds its dataset from them."""
import os

import tensorflow as tf


def file_queue(data_dir, patterns=('dict_*',), capacity=16, num_epochs=None):
  """The queue of the data files matching `patterns`."""
  files = [tf.gfile.Glob(os.path.join(data_dir, pattern)) for pattern in patterns]
  files = sorted(name for group in files for name in group)
  return tf.train.string_input_producer(files, capacity=capacity, num_epochs=num_epochs, shuffle=False)


def read_example(filename_queue):
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'], features['id']


def single_reader_batches(data_dir, batch_size, num_epochs=1):
  queue = file_queue(data_dir, num_epochs=num_epochs)
  x, example_id = read_example(queue)
  return tf.train.batch([x, example_id], batch_size=batch_size, allow_smaller_final_batch=True)


def reader_loop_batches(data_dir, batch_size, threads=3):
  queue = file_queue(data_dir, capacity=4 * batch_size, num_epochs=2)
  examples = []
  for _ in range(threads):
    x, example_id = read_example(queue)
    examples.append([x * 2.0, example_id])
  return tf.train.batch_join(examples, batch_size=batch_size)
