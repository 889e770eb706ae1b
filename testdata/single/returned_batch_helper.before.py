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
  threads = 2
  capacity = min_queue_examples + 3 * batch_size
  if shuffle:
    return tf.train.shuffle_batch([x, example_id], batch_size=batch_size, num_threads=threads,
                                  capacity=capacity, min_after_dequeue=min_queue_examples)
  return tf.train.batch([x, example_id], batch_size=batch_size, num_threads=threads, capacity=capacity)


def read_example(filename_queue):
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  features = tf.parse_single_example(serialized, features={
      'x': tf.FixedLenFeature([3], tf.float32),
      'id': tf.FixedLenFeature([], tf.int64)})
  return features['x'], features['id']


def training_batches(files, batch_size):
  queue = tf.train.string_input_producer(files, num_epochs=2)
  x, example_id = read_example(queue)
  return make_batches(x * 2.0, example_id, batch_size, shuffle=True)


def split_batches(files, batch_size, split):
  queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
  x, example_id = read_example(queue)
  return make_batches(x, example_id, batch_size, split == 'train')
