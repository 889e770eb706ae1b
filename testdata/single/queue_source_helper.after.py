"""A helper that globs the data files and returns their producer's queue; its callers read the
queue through a reader helper (once, or in a loop of readers for batch_join) and batch. Migrated,
the helper returns the file names, and each caller builds its dataset from them."""
import os

import tensorflow as tf


def file_queue(data_dir, patterns=('dict_*',), capacity=16, num_epochs=None):
  """The queue of the data files matching `patterns`."""
  files = [tf.gfile.Glob(os.path.join(data_dir, pattern)) for pattern in patterns]
  files = sorted(name for group in files for name in group)
  return files


def read_example(serialized):
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'], features['id']


def single_reader_batches(data_dir, batch_size, num_epochs=1):
  filenames = file_queue(data_dir, num_epochs=num_epochs)

  def parse_record(serialized):
    x, example_id = read_example(serialized)
    return x, example_id

  dataset = tf.data.Dataset.from_tensor_slices(filenames)
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  dataset = dataset.map(parse_record)
  dataset = dataset.repeat(num_epochs)
  dataset = dataset.batch(batch_size)
  dataset = dataset.prefetch(1)
  return list(dataset.make_one_shot_iterator().get_next())


def reader_loop_batches(data_dir, batch_size, threads=3):
  filenames_2 = file_queue(data_dir, capacity=4 * batch_size, num_epochs=2)

  def parse_record_2(serialized):
    x, example_id = read_example(serialized)
    return x * 2.0, example_id

  dataset_2 = tf.data.Dataset.from_tensor_slices(filenames_2)
  dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=threads)
  dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=threads)
  dataset_2 = dataset_2.repeat(2)
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  return list(dataset_2.make_one_shot_iterator().get_next())
