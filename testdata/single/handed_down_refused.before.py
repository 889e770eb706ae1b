"""Records handed down to batching helpers, and queues handed up by queue-source helpers, that stay
as they are: a flag computed by a call, arms that differ in more than the shuffle, and a producer
whose options are computed in a loop of the helper."""
import tensorflow as tf


def batches(x, batch_size, shuffle):
  if shuffle:
    return tf.train.shuffle_batch([x], batch_size=batch_size, capacity=100, min_after_dequeue=50)
  return tf.train.batch([x], batch_size=2 * batch_size)


def read(filename_queue):
  reader = tf.TextLineReader()
  _, line = reader.read(filename_queue)
  return tf.string_to_number(line)


def is_training():
  return True


def called_flag(files, batch_size):
  queue = tf.train.string_input_producer(files)
  x = read(queue)
  return batches(x, batch_size, is_training())


def other_sizes(files, batch_size, training):
  queue = tf.train.string_input_producer(files)
  x = read(queue)
  return batches(x, batch_size, training)


def looped_queue(files, epochs):
  for _ in range(3):
    epochs = epochs + 1
  return tf.train.string_input_producer(files, num_epochs=epochs)


def from_looped_queue(files, batch_size):
  queue = looped_queue(files, 2)
  x = read(queue)
  return tf.train.batch([x], batch_size)
