"""A helper that makes the file queue and the reader itself and returns one parsed example; its
callers transform and batch. Migrated, it takes the record and the parameters its parsing reads;
the producer and the reader become the caller's dataset. A preview function that reads single
examples through the helper keeps it as it is: the pipelines call a migrated copy."""
import tensorflow as tf


def load_example(files, num_epochs, scale):
  """Reads one example from `files` and scales its features.

  Args:
    files: the TFRecord files.
    num_epochs: how often to read them.
    scale: what the features are multiplied by.
  """
  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  dataset = dataset.repeat(num_epochs)
  serialized = dataset.make_one_shot_iterator().get_next()
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'] * scale, features['id']


def load_example_from_record(serialized, scale):
  """Reads one example from `files` and scales its features.

  Args:
    serialized: one record read from the files, a scalar string Tensor.
    scale: what the features are multiplied by.
  """
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'] * scale, features['id']


def scaled_inputs(files, batch_size):
  def parse_record(serialized):
    x, example_id = load_example_from_record(serialized, scale=0.5)
    x = x + 1.0
    return x, example_id

  dataset_2 = tf.data.Dataset.from_tensor_slices(files)
  dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
  dataset_2 = dataset_2.map(parse_record, num_parallel_calls=2)
  dataset_2 = dataset_2.repeat(2)
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  xs, ids = dataset_2.make_one_shot_iterator().get_next()
  return xs, ids


def preview(files):
  return load_example(files, 1, 1.0)
