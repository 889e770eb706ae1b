"""Evaluate on MNIST records, in file order, one pass."""
import tensorflow as tf

import mnist_records
from mnist_records import decode_digit as decode


def evaluation_batches(files, batch_size):
  """Batches of (image, label) in file order; the last one may be smaller."""
  queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
  image, label = decode(queue, mnist_records.IMAGE_PIXELS, scale=1. / 256)
  return tf.train.batch([image, label], batch_size=batch_size,
                        allow_smaller_final_batch=True)
