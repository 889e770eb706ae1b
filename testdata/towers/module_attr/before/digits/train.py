"""Shuffled training batches; the package's codec is imported relatively, as a module."""
import tensorflow as tf

from . import codec


class TrainInput(object):

  def __init__(self, batch_size, epochs):
    self.batch_size = batch_size
    self.epochs = epochs

  def batches(self, files):
    """Shuffled batches of (image, label), `epochs` passes over the files."""
    with tf.name_scope('train_input'):
      queue = tf.train.string_input_producer(files, num_epochs=self.epochs)
      image, label = codec.read_digit(queue)
      return tf.train.shuffle_batch(
          [image, label], batch_size=self.batch_size, num_threads=2,
          capacity=200 + 3 * self.batch_size, min_after_dequeue=200)
