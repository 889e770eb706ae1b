"""Decoding of the digit TFRecord files; the loaders call it through the module's name."""
import tensorflow as tf

PIXELS = 784


def read_digit(filename_queue):
  """Reads the next record of the queue's files; returns (image, label) tensors."""
  with tf.name_scope(None, 'read_digit', [filename_queue]):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(
        serialized,
        features={
            'image_raw': tf.FixedLenFeature([], tf.string),
            'label': tf.FixedLenFeature([], tf.int64),
        })
    image = tf.decode_raw(parsed['image_raw'], tf.uint8)
    image.set_shape([PIXELS])
    image = tf.cast(image, tf.float32) * (1. / 255) - 0.5
    label = tf.cast(parsed['label'], tf.int32)
    return image, label
