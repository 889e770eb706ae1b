"""The file queue is made in if/elif arms that differ in the file names (one file or a list), or
in the number of epochs; the reader and the batching follow. Migrated, the arms stay and name
what differs for the dataset. Arms that name match_filenames_once variables are left as they are."""
import tensorflow as tf


def _parse(serialized):
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'], features['id']


def inputs(files, batch_size):
  # One file or several.
  if not isinstance(files, list):
    filenames = [files]
  elif len(files) > 1:
    filenames = files
  else:
    filenames = files[:1]

  def parse_record(serialized):
    x, example_id = _parse(serialized)
    return x, example_id

  dataset = tf.data.Dataset.from_tensor_slices(filenames)
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  dataset = dataset.map(parse_record)
  dataset = dataset.repeat(2)
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  return list(dataset.make_one_shot_iterator().get_next())


def mixed_inputs(files, batch_size, train):
  if train:
    num_epochs = None
  else:
    num_epochs = 1

  def parse_record_2(serialized):
    x, example_id = _parse(serialized)
    return x, example_id

  dataset_2 = tf.data.Dataset.from_tensor_slices(files)
  dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
  dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
  dataset_2 = dataset_2.map(parse_record_2)
  dataset_2 = dataset_2.repeat(num_epochs)
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  return list(dataset_2.make_one_shot_iterator().get_next())


def pattern_inputs(pattern, patterns, batch_size):
  if pattern:
    filename_queue = tf.train.string_input_producer(tf.train.match_filenames_once(pattern))
  else:
    filename_queue = tf.train.string_input_producer(tf.train.match_filenames_once(patterns))
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  x, example_id = _parse(serialized)
  return tf.train.batch([x, example_id], batch_size=batch_size)


def train_or_eval(files, batch_size, train):
  # Shuffled, with a bigger buffer, for training; one ordered pass for evaluation.
  if train:
    num_epochs_2 = None
  else:
    num_epochs_2 = 1

  def parse_record_3(serialized):
    x, example_id = _parse(serialized)
    return x, example_id

  dataset_3 = tf.data.Dataset.from_tensor_slices(files)
  if train:
    dataset_3 = dataset_3.shuffle(tf.size(files, out_type=tf.int64))
  dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
  dataset_3 = dataset_3.map(parse_record_3)
  dataset_3 = dataset_3.repeat(num_epochs_2)
  dataset_3 = dataset_3.batch(batch_size)
  dataset_3 = dataset_3.prefetch(1)
  return list(dataset_3.make_one_shot_iterator().get_next())


def seeded_train_or_eval(files, batch_size, train, seed=None):
  # The arms differ in the shuffle, its seed and the epochs: one ordered pass for evaluation, whose
  # last partial batch is always the same examples, dropped.
  if train:
    num_epochs_3 = None
    seed_2 = seed
  else:
    num_epochs_3 = 1
    seed_2 = None

  def parse_record_4(serialized):
    x, example_id = _parse(serialized)
    return x, example_id

  dataset_4 = tf.data.Dataset.from_tensor_slices(files)
  if train:
    dataset_4 = dataset_4.shuffle(tf.size(files, out_type=tf.int64), seed=seed_2)
  dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
  dataset_4 = dataset_4.map(parse_record_4)
  dataset_4 = dataset_4.repeat(num_epochs_3)
  dataset_4 = dataset_4.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_4 = dataset_4.prefetch(1)
  return list(dataset_4.make_one_shot_iterator().get_next())
