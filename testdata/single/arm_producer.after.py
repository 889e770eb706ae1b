"""A file queue made before an `if` whose arms each read it and batch what they read: each arm
gets the producer (arm_producers), so each arm's block holds a whole chain."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def decode(serialized):
  example = tf.parse_single_example(serialized, FEATURES)
  return example['x'], example['id']


def batches(files, batch_size, training):
  # The file names, shuffled for training only.

  def scaled(x):
    return x * 2.

  if training:
    def parse_record(serialized_2):
      x, ids = decode(serialized_2)
      return scaled(x), ids

    dataset = tf.data.Dataset.from_tensor_slices(files)
    if training:
      dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, 2 if training else 1))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
  else:
    def parse_record_2(serialized):
      example = tf.parse_single_example(serialized, FEATURES)
      x, ids = example['x'], example['id']
      return x, ids

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    if training:
      dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(2 if training else 1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def evaluation_or_nothing(files, batch_size, evaluate):
  """No `else`: the path that skips the `if` never read the queue; nothing is made there now."""
  if evaluate:
    def parse_record_3(serialized):
      x, ids = decode(serialized)
      return x, ids

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return list(dataset_3.make_one_shot_iterator().get_next())
  return None
