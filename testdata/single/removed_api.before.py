"""A CIFAR-style binary input written against TF 0.12: it still whitens with an API that TF 1.0
removed, so even once its queues become tf.data it runs under no TensorFlow version."""
import os

import tensorflow as tf

CROP = 24
RECORD_BYTES = 1 + 32 * 32 * 3


def _decode(value):
  raw = tf.decode_raw(value, tf.uint8)
  label = tf.cast(tf.slice(raw, [0], [1]), tf.int32)
  planes = tf.reshape(tf.slice(raw, [1], [RECORD_BYTES - 1]), [3, 32, 32])
  image = tf.cast(tf.transpose(planes, [1, 2, 0]), tf.float32)
  return image, label


def training_inputs(data_dir, batch_size):
  """Randomly cropped, flipped and whitened images with their labels, shuffled."""
  files = [os.path.join(data_dir, 'data_batch_%d.bin' % i) for i in range(1, 6)]
  file_queue = tf.train.string_input_producer(files)
  reader = tf.FixedLengthRecordReader(record_bytes=RECORD_BYTES)
  _, value = reader.read(file_queue)
  image, label = _decode(value)
  image = tf.random_crop(image, [CROP, CROP, 3])
  image = tf.image.random_flip_left_right(image)
  image = tf.image.per_image_whitening(image)
  label.set_shape([1])
  images, labels = tf.train.shuffle_batch(
      [image, label], batch_size=batch_size, num_threads=4,
      capacity=2000 + 3 * batch_size, min_after_dequeue=2000)
  tf.image_summary('training_images', images)
  return images, tf.reshape(labels, [batch_size])


def test_inputs(data_dir, batch_size):
  """Centre-cropped, whitened test images in file order."""
  file_queue = tf.train.string_input_producer(
      [os.path.join(data_dir, 'test_batch.bin')], shuffle=False)
  reader = tf.FixedLengthRecordReader(record_bytes=RECORD_BYTES)
  _, value = reader.read(file_queue)
  image, label = _decode(value)
  image = tf.image.resize_image_with_crop_or_pad(image, CROP, CROP)
  image = tf.image.per_image_whitening(image)
  label.set_shape([1])
  images, labels = tf.train.batch([image, label], batch_size=batch_size, num_threads=2)
  return images, tf.reshape(labels, [batch_size])
