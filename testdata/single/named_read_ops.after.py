"""Pipelines that name their ops: `reader.read(queue, name=...)` in the input function and in a
reader helper. The names only label the queue ops, which the migration removes."""
import tensorflow as tf


def read_example(serialized):
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'], features['id']


def helper_inputs(files, batch_size):
  def parse_record(serialized):
    x, example_id = read_example(serialized)
    return x, example_id

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  dataset = dataset.map(parse_record)
  dataset = dataset.repeat(1)
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  return list(dataset.make_one_shot_iterator().get_next(name='batch'))


def named_inputs(files, batch_size):
  def parse_record_2(serialized):
    features = tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})
    return features['id']

  dataset_2 = tf.data.Dataset.from_tensor_slices(files)
  dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
  dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
  dataset_2 = dataset_2.map(parse_record_2)
  dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  return dataset_2.make_one_shot_iterator().get_next(name='shuffled')
