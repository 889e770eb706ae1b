"""Reading (x, v) pairs from TFRecord files; shared by the models of this folder."""
import tensorflow as tf


def emphasise(signal, factor):
  return signal * factor


def read_pair(serialized, emphasis=0.):
  """The next record of the queue's files, as its x and v tensors (and its id)."""
  features = tf.parse_single_example(
      serialized,
      features={
          'x': tf.FixedLenFeature([3], tf.float32),
          'v': tf.FixedLenFeature([2], tf.float32),
          'id': tf.FixedLenFeature([], tf.int64),
      })
  x, v = features['x'], features['v']
  if emphasis > 0:
    x = emphasise(x, emphasis)
  return x, v, tf.cast(features['id'], tf.int32)
