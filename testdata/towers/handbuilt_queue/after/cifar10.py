"""Builds the CIFAR-10 network (a small version, in the style of the TF 1.x tutorial).

Summary of available functions:
 # Compute input images and labels for training.
 inputs, labels, ids = distorted_inputs()
 # Compute inference on the model inputs to make a prediction.
 predictions = inference(inputs)
 # Compute the total loss of the prediction with respect to the labels.
 loss = loss(predictions, labels)
"""
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import re

import tensorflow as tf

import cifar10_input

FLAGS = tf.app.flags.FLAGS

# Basic model parameters.
tf.app.flags.DEFINE_integer('batch_size', 32,
                            """Number of images to process in a batch.""")
tf.app.flags.DEFINE_string('data_dir', '/tmp/cifar10_data',
                           """Path to the CIFAR-10 data directory.""")
tf.app.flags.DEFINE_boolean('use_fp16', False,
                            """Train the model using fp16.""")

# Global constants describing the CIFAR-10 data set.
IMAGE_SIZE = cifar10_input.IMAGE_SIZE
NUM_CLASSES = cifar10_input.NUM_CLASSES
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN

# If a model is trained with multiple GPUs, prefix all Op names with tower_name
# to differentiate the operations.
TOWER_NAME = 'tower'


def _variable_on_cpu(name, shape, initializer):
  """Helper to create a Variable stored on CPU memory."""
  with tf.device('/cpu:0'):
    dtype = tf.float16 if FLAGS.use_fp16 else tf.float32
    var = tf.get_variable(name, shape, initializer=initializer, dtype=dtype)
  return var


def _variable_with_weight_decay(name, shape, stddev, wd, seed):
  dtype = tf.float16 if FLAGS.use_fp16 else tf.float32
  var = _variable_on_cpu(
      name, shape, tf.truncated_normal_initializer(stddev=stddev, dtype=dtype, seed=seed))
  if wd is not None:
    weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name='weight_loss')
    tf.add_to_collection('losses', weight_decay)
  return var


def distorted_inputs(num_shards=1, shard_index=0):
  """Construct distorted input for CIFAR training using the Reader ops.

  Returns:
    images: Images. 4D tensor of [batch_size, IMAGE_SIZE, IMAGE_SIZE, 3] size.
    labels: Labels. 1D tensor of [batch_size] size.
    ids: Example ids. 1D tensor of [batch_size] size.
  """
  if not FLAGS.data_dir:
    raise ValueError('Please supply a data_dir')
  images, labels, ids = cifar10_input.distorted_inputs(data_dir=FLAGS.data_dir,
                                                       batch_size=FLAGS.batch_size, num_shards=num_shards, shard_index=shard_index)
  if FLAGS.use_fp16:
    images = tf.cast(images, tf.float16)
  return images, labels, ids


def inputs(eval_data):
  """Construct input for CIFAR evaluation using the Reader ops."""
  if not FLAGS.data_dir:
    raise ValueError('Please supply a data_dir')
  images, labels, ids = cifar10_input.inputs(eval_data=eval_data,
                                             data_dir=FLAGS.data_dir,
                                             batch_size=FLAGS.batch_size)
  if FLAGS.use_fp16:
    images = tf.cast(images, tf.float16)
  return images, labels, ids


def inference(images):
  """Build the CIFAR-10 model: one small conv layer and a softmax layer.

  Returns:
    Logits.
  """
  with tf.variable_scope('conv1') as scope:
    kernel = _variable_with_weight_decay('weights', shape=[5, 5, 3, 16],
                                         stddev=5e-2, wd=None, seed=1)
    conv = tf.nn.conv2d(images, kernel, [1, 2, 2, 1], padding='SAME')
    biases = _variable_on_cpu('biases', [16], tf.constant_initializer(0.0))
    conv1 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)

  pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                         padding='SAME', name='pool1')

  with tf.variable_scope('softmax_linear') as scope:
    reshape = tf.reshape(pool1, [images.get_shape()[0].value, -1])
    dim = reshape.get_shape()[1].value
    weights = _variable_with_weight_decay('weights', [dim, NUM_CLASSES],
                                          stddev=1 / float(dim), wd=0.0, seed=2)
    biases = _variable_on_cpu('biases', [NUM_CLASSES],
                              tf.constant_initializer(0.0))
    softmax_linear = tf.add(tf.matmul(reshape, weights), biases, name=scope.name)
  return softmax_linear


def loss(logits, labels):
  """Add L2Loss to all the trainable variables.

  Returns:
    Loss tensor of type float.
  """
  labels = tf.cast(labels, tf.int64)
  cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
      labels=labels, logits=logits, name='cross_entropy_per_example')
  cross_entropy_mean = tf.reduce_mean(cross_entropy, name='cross_entropy')
  tf.add_to_collection('losses', cross_entropy_mean)
  return tf.add_n(tf.get_collection('losses'), name='total_loss')
