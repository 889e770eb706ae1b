"""CIFAR-10 binary input, in the style of the 2016 tutorial (one function)."""
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import os

import tensorflow as tf

IMAGE_SIZE = 24
NUM_CLASSES = 10
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = 50000


def inputs(data_dir, batch_size, num_epochs=None):
  """Construct shuffled input for CIFAR training using the Reader ops.

  Returns:
    images: Images. 4D tensor of [batch_size, 32, 32, 3] size.
    labels: Labels. 1D tensor of [batch_size] size.
  """
  filenames = [os.path.join(data_dir, 'data_batch_%d.bin' % i)
               for i in range(1, 6)]
  for f in filenames:
    if not tf.gfile.Exists(f):
      raise ValueError('Failed to find file: ' + f)

  label_bytes = 1  # 2 for CIFAR-100
  height, width, depth = 32, 32, 3
  image_bytes = height * width * depth
  # Every record consists of a label followed by the image, with a
  # fixed number of bytes for each.
  record_bytes = label_bytes + image_bytes

  def parse_record(value):
    # Convert from a string to a vector of uint8 that is record_bytes long.
    record = tf.decode_raw(value, tf.uint8)
    # The first bytes represent the label, which we convert from uint8->int32.
    label = tf.cast(tf.strided_slice(record, [0], [label_bytes]), tf.int32)
    depth_major = tf.reshape(
        tf.strided_slice(record, [label_bytes], [label_bytes + image_bytes]),
        [depth, height, width])
    image = tf.cast(tf.transpose(depth_major, [1, 2, 0]), tf.float32)
    label.set_shape([1])
    return image, label

  min_queue_examples = int(NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN * 0.4)
  print('Filling shuffle buffer with %d CIFAR images before starting to train. '
        'This will take a few minutes.' % min_queue_examples)

  dataset = tf.data.Dataset.from_tensor_slices(filenames)
  dataset = dataset.shuffle(tf.size(filenames, out_type=tf.int64))
  dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=record_bytes))
  dataset = dataset.map(parse_record, num_parallel_calls=16)
  dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size, num_epochs))
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  images, label_batch = dataset.make_one_shot_iterator().get_next()
  tf.summary.image('images', images)
  return images, tf.reshape(label_batch, [batch_size])
