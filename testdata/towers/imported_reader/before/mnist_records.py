"""Decoding of the MNIST TFRecord files, shared by the training and the evaluation script."""
import tensorflow as tf

IMAGE_PIXELS = 784


def decode_digit(filename_queue, pixels, scale=1. / 255):
  """Reads the next record of the queue's files and returns (image, label) tensors."""
  reader = tf.TFRecordReader()
  _, serialized = reader.read(filename_queue)
  features = tf.parse_single_example(
      serialized,
      features={
          'image_raw': tf.FixedLenFeature([], tf.string),
          'label': tf.FixedLenFeature([], tf.int64),
      })
  image = tf.decode_raw(features['image_raw'], tf.uint8)
  image.set_shape([pixels])
  image = tf.cast(image, tf.float32) * scale - 0.5
  label = tf.cast(features['label'], tf.int32)
  return image, label
