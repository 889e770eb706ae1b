"""A file queue made before an `if` whose arms each read it and batch what they read: each arm
gets the producer (arm_producers), so each arm's block holds a whole chain."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def decode(filename_queue):
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  example = tf.parse_single_example(serialized, FEATURES)
  return example['x'], example['id']


def batches(files, batch_size, training):
  # The file names, shuffled for training only.
  queue = tf.train.string_input_producer(files, num_epochs=2 if training else 1,
                                         shuffle=training)

  def scaled(x):
    return x * 2.

  if training:
    x, ids = decode(queue)
    return tf.train.shuffle_batch([scaled(x), ids], batch_size, capacity=40,
                                  min_after_dequeue=10)
  else:
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    example = tf.parse_single_example(serialized, FEATURES)
    x, ids = example['x'], example['id']
    return tf.train.batch([x, ids], batch_size, allow_smaller_final_batch=True)


def evaluation_or_nothing(files, batch_size, evaluate):
  """No `else`: the path that skips the `if` never read the queue; nothing is made there now."""
  queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
  if evaluate:
    x, ids = decode(queue)
    return tf.train.batch([x, ids], batch_size, allow_smaller_final_batch=True)
  return None
