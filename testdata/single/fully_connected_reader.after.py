"""The input half of TensorFlow's how_tos/reading_data/fully_connected_reader.py (TF 1.x):
a reader helper that returns (image, label), called from a name scope."""
import os.path

import tensorflow as tf

TRAIN_FILE = 'train.tfrecords'
VALIDATION_FILE = 'validation.tfrecords'


def read_and_decode(serialized_example):
  features = tf.parse_single_example(
      serialized_example,
      # Defaults are not specified since both keys are required.
      features={
          'image_raw': tf.FixedLenFeature([], tf.string),
          'label': tf.FixedLenFeature([], tf.int64),
      })

  # Convert from a scalar string tensor (whose single string has
  # length mnist.IMAGE_PIXELS) to a uint8 tensor with shape
  # [mnist.IMAGE_PIXELS].
  image = tf.decode_raw(features['image_raw'], tf.uint8)
  image.set_shape([784])

  # Convert from [0, 255] -> [-0.5, 0.5] floats.
  image = tf.cast(image, tf.float32) * (1. / 255) - 0.5

  # Convert label from a scalar uint8 tensor to an int32 scalar.
  label = tf.cast(features['label'], tf.int32)

  return image, label


def inputs(filenames, batch_size, num_epochs):
  """Reads input data num_epochs times.

  Returns:
    A tuple (images, labels).
  """
  if not num_epochs: num_epochs = None

  with tf.name_scope('input'):
    def parse_record(serialized_example):
      image, label = read_and_decode(serialized_example)
      return image, label

    # Ensures a minimum amount of shuffling of examples.
    dataset = tf.data.Dataset.from_tensor_slices(filenames)
    dataset = dataset.shuffle(tf.size(filenames, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(1000, num_epochs))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    images, sparse_labels = dataset.make_one_shot_iterator().get_next()

    return images, sparse_labels
