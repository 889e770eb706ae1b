"""Evaluate on MNIST records, in file order, one pass."""
import tensorflow as tf

import mnist_records
from mnist_records import decode_digit as decode


def evaluation_batches(files, batch_size):
  """Batches of (image, label) in file order; the last one may be smaller."""
  def parse_record(serialized):
    image, label = decode(serialized, mnist_records.IMAGE_PIXELS, scale=1. / 256)
    return image, label

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  dataset = dataset.map(parse_record)
  dataset = dataset.repeat(1)
  dataset = dataset.batch(batch_size)
  dataset = dataset.prefetch(1)
  return list(dataset.make_one_shot_iterator().get_next())
