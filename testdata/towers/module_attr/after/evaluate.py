"""Evaluation batches in file order, one pass; the codec is imported under an alias."""
import tensorflow as tf

import digits.codec as codec


class EvalInput(object):

  def __init__(self, batch_size):
    self.batch_size = batch_size

  def batches(self, files):
    def parse_record(serialized):
      image, label = codec.read_digit(serialized)
      return image, label

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(self.batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def evaluation_batches(files, batch_size):
  """Batches of (image, label) in file order; the last one may be smaller."""
  return EvalInput(batch_size).batches(files)
