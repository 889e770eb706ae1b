"""Evaluate over MNIST TFRecords: slim's QueueRunners block runs the input while the loop reads it."""
import tensorflow as tf

slim = tf.contrib.slim


def eval_inputs(filenames, batch_size, num_epochs=None):
  """Batches of (raw image, label), in file order."""
  filename_queue = tf.train.string_input_producer(filenames, num_epochs=num_epochs, shuffle=False)
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  features = tf.parse_single_example(serialized, features={
      'image_raw': tf.FixedLenFeature([], tf.string),
      'label': tf.FixedLenFeature([], tf.int64),
  })
  image = tf.decode_raw(features['image_raw'], tf.uint8)
  image.set_shape([784])
  label = tf.cast(features['label'], tf.int32)
  return tf.train.batch([image, label], batch_size=batch_size, num_threads=1, capacity=64)


def evaluate(filenames, batch_size, steps):
  """The labels of the first `steps` batches of one epoch, read inside slim's QueueRunners block."""
  _, labels = eval_inputs(filenames, batch_size, num_epochs=1)
  seen = []
  with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    # The runners fill the batch queue while the loop reads it.
    with slim.queues.QueueRunners(sess):
      for _ in range(steps):
        seen.extend(sess.run(labels).tolist())
  return seen


def pixel_sums(filenames, batch_size, steps):
  """The pixel sum of each image of the first `steps` batches: the session and the runners in one `with`."""
  images, _ = eval_inputs(filenames, batch_size)
  sums = []
  with tf.Session() as sess, slim.queues.QueueRunners(sess):
    for _ in range(steps):
      sums.extend(sess.run(tf.reduce_sum(tf.cast(images, tf.int64), axis=1)).tolist())
  return sums
