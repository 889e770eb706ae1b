"""A batching helper that returns the batch it makes: shuffled when its flag holds, in order
otherwise. Its callers read the records and hand them down, one with a literal flag, one with a
flag computed at run time. Migrated, each caller batches a dataset (shuffled under the caller's
own test when the flag is computed) and hands the helper the batch, which it returns."""
import tensorflow as tf


def make_batches(x, example_id, batch_size, shuffle, min_queue_examples=20):
  """Batches one example's tensors.

  Args:
    x: the features of one example.
    example_id: its id.
  """
  return [x, example_id]


def read_example(serialized):
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'], features['id']


def training_batches(files, batch_size):
  def parse_record(serialized):
    x, example_id = read_example(serialized)
    return x * 2.0, example_id

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  dataset = dataset.map(parse_record, num_parallel_calls=2)
  dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20, 2))
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  x_2, example_id_2 = dataset.make_one_shot_iterator().get_next()
  return make_batches(x_2, example_id_2, batch_size, shuffle=True)


def split_batches(files, batch_size, split):
  def parse_record_2(serialized):
    x, example_id = read_example(serialized)
    return x, example_id

  dataset_2 = tf.data.Dataset.from_tensor_slices(files)
  dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
  dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
  if split == 'train':
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(20, 1))
  else:
    dataset_2 = dataset_2.repeat(1)
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  x_2, example_id_2 = dataset_2.make_one_shot_iterator().get_next()
  return make_batches(x_2, example_id_2, batch_size, split == 'train')
