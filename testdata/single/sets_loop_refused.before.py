"""Loops over sets of batches that qmigrate leaves as they are: what each one does with the
shared reader's records is not proven to keep each record in the one set that batches it."""
import tensorflow as tf


def reused_after_batching(list_path, batch_size, num_sets=2):
  filename_queue = tf.train.string_input_producer([list_path])
  reader = tf.TextLineReader()
  _, line = reader.read(filename_queue)
  value, label = tf.decode_csv(line, [[0.0], [0]], field_delim=' ')
  batches, firsts = [], []
  for i in range(num_sets):
    values, labels = tf.train.batch([value, label], batch_size=batch_size)
    batches.append(values)
    firsts.append(value)
  return batches, firsts


def two_batchings(list_path, batch_size, num_sets=2):
  filename_queue = tf.train.string_input_producer([list_path])
  reader = tf.TextLineReader()
  _, line = reader.read(filename_queue)
  value, label = tf.decode_csv(line, [[0.0], [0]], field_delim=' ')
  batches = []
  for i in range(num_sets):
    batches.append(tf.train.batch([value, label], batch_size=batch_size))
    values, labels = tf.train.batch([value, label], batch_size=batch_size)
  return batches, values


def rebinds_the_record(list_path, batch_size, num_sets=2):
  filename_queue = tf.train.string_input_producer([list_path])
  reader = tf.TextLineReader()
  _, line = reader.read(filename_queue)
  value, label = tf.decode_csv(line, [[0.0], [0]], field_delim=' ')
  sets = []
  for i in range(num_sets):
    value = value * 2.0
    values, labels = tf.train.batch([value, label], batch_size=batch_size)
    sets.append((values, labels))
  return sets


def captures_loop_noise(list_path, batch_size, num_sets=2):
  filename_queue = tf.train.string_input_producer([list_path])
  reader = tf.TextLineReader()
  _, line = reader.read(filename_queue)
  value, label = tf.decode_csv(line, [[0.0], [0]], field_delim=' ')
  sets = []
  for i in range(num_sets):
    noise = tf.random_uniform([], maxval=0.1)
    noisy = value + noise
    values, labels = tf.train.batch([noisy, label], batch_size=batch_size)
    sets.append((values, labels))
  return sets


def returns_from_the_loop(list_path, batch_size, num_sets=2):
  filename_queue = tf.train.string_input_producer([list_path])
  reader = tf.TextLineReader()
  _, line = reader.read(filename_queue)
  value, label = tf.decode_csv(line, [[0.0], [0]], field_delim=' ')
  for i in range(num_sets):
    if i == 1:
      return value
    values, labels = tf.train.batch([value, label], batch_size=batch_size)
  return values, labels


def rebinds_what_the_queue_reads(list_path, batch_size, num_sets=2):
  filename_queue = tf.train.string_input_producer([list_path])
  reader = tf.TextLineReader()
  _, line = reader.read(filename_queue)
  value, label = tf.decode_csv(line, [[0.0], [0]], field_delim=' ')
  sets = []
  for i in range(num_sets):
    label = i
    values, labels = tf.train.batch([value, label], batch_size=batch_size)
    sets.append((values, labels))
  return sets
