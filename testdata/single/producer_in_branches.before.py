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
    filename_queue = tf.train.string_input_producer([files], num_epochs=2, shuffle=False)
  elif len(files) > 1:
    filename_queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
  else:
    filename_queue = tf.train.string_input_producer(files[:1], num_epochs=2, shuffle=False)
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  x, example_id = _parse(serialized)
  return tf.train.batch([x, example_id], batch_size=batch_size)


def mixed_inputs(files, batch_size, train):
  if train:
    filename_queue = tf.train.string_input_producer(files)
  else:
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  x, example_id = _parse(serialized)
  return tf.train.batch([x, example_id], batch_size=batch_size)


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
    filename_queue = tf.train.string_input_producer(files, shuffle=True, capacity=16)
  else:
    filename_queue = tf.train.string_input_producer(files, shuffle=False, capacity=1, num_epochs=1)
  _, serialized = tf.TFRecordReader().read(filename_queue)
  x, example_id = _parse(serialized)
  return tf.train.batch([x, example_id], batch_size=batch_size, allow_smaller_final_batch=True)


def seeded_train_or_eval(files, batch_size, train, seed=None):
  # The arms differ in the shuffle, its seed and the epochs: one ordered pass for evaluation, whose
  # last partial batch is always the same examples, dropped.
  if train:
    filename_queue = tf.train.string_input_producer(files, shuffle=True, seed=seed)
  else:
    filename_queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
  _, serialized = tf.TFRecordReader().read(filename_queue)
  x, example_id = _parse(serialized)
  return tf.train.batch([x, example_id], batch_size=batch_size)
