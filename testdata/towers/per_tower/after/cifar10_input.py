"""Routine for decoding the CIFAR-10 binary file format.

Written in the style of the TF 1.x CIFAR-10 tutorial. Instrumented for the equivalence tests:
each record carries an example id in its first three pixel bytes, and the pipeline returns it
as a third tensor so that a test can see which example reached which tower.
"""
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import os

from six.moves import xrange  # pylint: disable=redefined-builtin
import tensorflow as tf

# Process images of this size. Note that this differs from the original CIFAR
# image size of 32 x 32.
IMAGE_SIZE = 24

# Global constants describing the CIFAR-10 data set.
NUM_CLASSES = 10
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = 1280
NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = 256


def read_cifar10(filename_queue):
  """Reads and parses examples from CIFAR10 data files.

  Args:
    filename_queue: A queue of strings with the filenames to read from.

  Returns:
    An object representing a single example, with the following fields:
      height, width, depth: the image dimensions.
      key: a scalar string Tensor describing the filename & record number.
      label: an int32 Tensor with the label in the range 0..9.
      example_id: an int32 Tensor, the example's id (test instrumentation).
      uint8image: a [height, width, depth] uint8 Tensor with the image data
  """

  class CIFAR10Record(object):
    pass
  result = CIFAR10Record()

  # Dimensions of the images in the CIFAR-10 dataset.
  label_bytes = 1  # 2 for CIFAR-100
  result.height = 32
  result.width = 32
  result.depth = 3
  image_bytes = result.height * result.width * result.depth
  # Every record consists of a label followed by the image, with a
  # fixed number of bytes for each.
  record_bytes = label_bytes + image_bytes

  # Read a record, getting filenames from the filename_queue.  No
  # header or footer in the CIFAR-10 format, so we leave header_bytes
  # and footer_bytes at their default of 0.
  reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)
  result.key, value = reader.read(filename_queue)

  # Convert from a string to a vector of uint8 that is record_bytes long.
  record_bytes = tf.decode_raw(value, tf.uint8)

  # The first bytes represent the label, which we convert from uint8->int32.
  result.label = tf.cast(
      tf.strided_slice(record_bytes, [0], [label_bytes]), tf.int32)

  id_bytes = tf.cast(tf.strided_slice(record_bytes, [label_bytes], [label_bytes + 3]), tf.int32)
  result.example_id = id_bytes[0] * 65536 + id_bytes[1] * 256 + id_bytes[2]

  # The remaining bytes after the label represent the image, which we reshape
  # from [depth * height * width] to [depth, height, width].
  depth_major = tf.reshape(
      tf.strided_slice(record_bytes, [label_bytes],
                       [label_bytes + image_bytes]),
      [result.depth, result.height, result.width])
  # Convert from [depth, height, width] to [height, width, depth].
  result.uint8image = tf.transpose(depth_major, [1, 2, 0])

  return result


def parse_cifar10(value):
  """Reads and parses examples from CIFAR10 data files.

  Args:
    value: one record read from the files, a scalar string Tensor.

  Returns:
    An object representing a single example, with the following fields:
      height, width, depth: the image dimensions.
      key: a scalar string Tensor describing the filename & record number.
      label: an int32 Tensor with the label in the range 0..9.
      example_id: an int32 Tensor, the example's id (test instrumentation).
      uint8image: a [height, width, depth] uint8 Tensor with the image data
  """

  class CIFAR10Record(object):
    pass
  result = CIFAR10Record()

  # Dimensions of the images in the CIFAR-10 dataset.
  label_bytes = 1  # 2 for CIFAR-100
  result.height = 32
  result.width = 32
  result.depth = 3
  image_bytes = result.height * result.width * result.depth
  # Every record consists of a label followed by the image, with a
  # fixed number of bytes for each.
  record_bytes = label_bytes + image_bytes

  # Convert from a string to a vector of uint8 that is record_bytes long.
  record_bytes = tf.decode_raw(value, tf.uint8)

  # The first bytes represent the label, which we convert from uint8->int32.
  result.label = tf.cast(
      tf.strided_slice(record_bytes, [0], [label_bytes]), tf.int32)

  id_bytes = tf.cast(tf.strided_slice(record_bytes, [label_bytes], [label_bytes + 3]), tf.int32)
  result.example_id = id_bytes[0] * 65536 + id_bytes[1] * 256 + id_bytes[2]

  # The remaining bytes after the label represent the image, which we reshape
  # from [depth * height * width] to [depth, height, width].
  depth_major = tf.reshape(
      tf.strided_slice(record_bytes, [label_bytes],
                       [label_bytes + image_bytes]),
      [result.depth, result.height, result.width])
  # Convert from [depth, height, width] to [height, width, depth].
  result.uint8image = tf.transpose(depth_major, [1, 2, 0])

  return result


def _generate_image_and_label_batch(images, label_batch, ids, min_queue_examples,
                                    batch_size, shuffle):
  """Construct a queued batch of images and labels.

  Args:
    image: 3-D Tensor of [height, width, 3] of type.float32.
    label: 1-D Tensor of type.int32
    example_id: 0-D Tensor of type.int32
    min_queue_examples: int32, minimum number of samples to retain
      in the queue that provides of batches of examples.
    batch_size: Number of images per batch.
    shuffle: boolean indicating whether to use a shuffling queue.

  Returns:
    images: Images. 4D tensor of [batch_size, height, width, 3] size.
    labels: Labels. 1D tensor of [batch_size] size.
    ids: Example ids. 1D tensor of [batch_size] size.
  """

  # Display the training images in the visualizer.
  tf.summary.image('images', images)

  return images, tf.reshape(label_batch, [batch_size]), ids


def distorted_inputs(data_dir, batch_size):
  """Construct distorted input for CIFAR training using the Reader ops.

  Args:
    data_dir: Path to the CIFAR-10 data directory.
    batch_size: Number of images per batch.

  Returns:
    images: Images. 4D tensor of [batch_size, IMAGE_SIZE, IMAGE_SIZE, 3] size.
    labels: Labels. 1D tensor of [batch_size] size.
    ids: Example ids. 1D tensor of [batch_size] size.
  """
  filenames = [os.path.join(data_dir, 'data_batch_%d.bin' % i)
               for i in xrange(1, 6)]
  for f in filenames:
    if not tf.gfile.Exists(f):
      raise ValueError('Failed to find file: ' + f)

  with tf.name_scope('data_augmentation'):
    graph_seed = tf.get_default_graph().seed

    def parse_record(value):
      tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
      read_input = parse_cifar10(value)
      reshaped_image = tf.cast(read_input.uint8image, tf.float32)

      # Image processing for training the network. Note the many random
      # distortions applied to the image.

      # Randomly crop a [height, width] section of the image.
      distorted_image = tf.random_crop(reshaped_image, [height, width, 3])

      # Randomly flip the image horizontally.
      distorted_image = tf.image.random_flip_left_right(distorted_image)

      # Because these operations are not commutative, consider randomizing
      # the order their operation.
      distorted_image = tf.image.random_brightness(distorted_image,
                                                   max_delta=63)
      distorted_image = tf.image.random_contrast(distorted_image,
                                                 lower=0.2, upper=1.8)

      # Subtract off the mean and divide by the variance of the pixels.
      float_image = tf.image.per_image_standardization(distorted_image)

      # Set the shapes of tensors.
      float_image.set_shape([height, width, 3])
      read_input.label.set_shape([1])
      return float_image, read_input.label, read_input.example_id

    height = IMAGE_SIZE
    width = IMAGE_SIZE

    # Ensure that the random shuffling has good mixing properties.
    min_fraction_of_examples_in_queue = 0.4
    min_queue_examples = int(NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN *
                             min_fraction_of_examples_in_queue)
    print ('Filling shuffle buffer with %d CIFAR images before starting to train. '
           'This will take a few minutes.' % min_queue_examples)

  dataset = tf.data.Dataset.from_tensor_slices(filenames)
  dataset = dataset.shuffle(tf.size(filenames, out_type=tf.int64))
  dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=1 + (32 * 32 * 3)))
  dataset = dataset.map(parse_record, num_parallel_calls=4)
  dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size))
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  images, label_batch, ids = dataset.make_one_shot_iterator().get_next()
  return _generate_image_and_label_batch(images, label_batch,
                                         ids,
                                         min_queue_examples, batch_size,
                                         shuffle=True)


def inputs(eval_data, data_dir, batch_size):
  """Construct input for CIFAR evaluation using the Reader ops.

  Args:
    eval_data: bool, indicating if one should use the train or eval data set.
    data_dir: Path to the CIFAR-10 data directory.
    batch_size: Number of images per batch.

  Returns:
    images: Images. 4D tensor of [batch_size, IMAGE_SIZE, IMAGE_SIZE, 3] size.
    labels: Labels. 1D tensor of [batch_size] size.
    ids: Example ids. 1D tensor of [batch_size] size.
  """
  if not eval_data:
    filenames = [os.path.join(data_dir, 'data_batch_%d.bin' % i)
                 for i in xrange(1, 6)]
    num_examples_per_epoch = NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN
  else:
    filenames = [os.path.join(data_dir, 'test_batch.bin')]
    num_examples_per_epoch = NUM_EXAMPLES_PER_EPOCH_FOR_EVAL

  for f in filenames:
    if not tf.gfile.Exists(f):
      raise ValueError('Failed to find file: ' + f)

  with tf.name_scope('input'):
    def parse_record_2(value):
      read_input = parse_cifar10(value)
      reshaped_image = tf.cast(read_input.uint8image, tf.float32)

      # Image processing for evaluation.
      # Crop the central [height, width] of the image.
      resized_image = tf.image.resize_image_with_crop_or_pad(reshaped_image,
                                                             height, width)

      # Subtract off the mean and divide by the variance of the pixels.
      float_image = tf.image.per_image_standardization(resized_image)

      # Set the shapes of tensors.
      float_image.set_shape([height, width, 3])
      read_input.label.set_shape([1])
      return float_image, read_input.label, read_input.example_id

    height = IMAGE_SIZE
    width = IMAGE_SIZE

    # Ensure that the random shuffling has good mixing properties.
    min_fraction_of_examples_in_queue = 0.4
    min_queue_examples = int(num_examples_per_epoch *
                             min_fraction_of_examples_in_queue)

  dataset_2 = tf.data.Dataset.from_tensor_slices(filenames)
  dataset_2 = dataset_2.shuffle(tf.size(filenames, out_type=tf.int64))
  dataset_2 = dataset_2.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=1 + (32 * 32 * 3)))
  dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=4)
  dataset_2 = dataset_2.repeat()
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  images, label_batch, ids = dataset_2.make_one_shot_iterator().get_next()
  return _generate_image_and_label_batch(images, label_batch,
                                         ids,
                                         min_queue_examples, batch_size,
                                         shuffle=False)
