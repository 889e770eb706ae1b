"""Evaluation batches in file order, one pass; the codec is imported under an alias."""
import tensorflow as tf

import digits.codec as codec


class EvalInput(object):

  def __init__(self, batch_size):
    self.batch_size = batch_size

  def batches(self, files):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    image, label = codec.read_digit(queue)
    return tf.train.batch([image, label], batch_size=self.batch_size,
                          allow_smaller_final_batch=True)


def evaluation_batches(files, batch_size):
  """Batches of (image, label) in file order; the last one may be smaller."""
  return EvalInput(batch_size).batches(files)
