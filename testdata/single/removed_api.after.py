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
  graph_seed = tf.get_default_graph().seed

  def parse_record(value):
    tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
    image, label = _decode(value)
    image = tf.random_crop(image, [CROP, CROP, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.per_image_whitening(image)
    label.set_shape([1])
    return image, label

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
  dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=RECORD_BYTES))
  dataset = dataset.map(parse_record, num_parallel_calls=4)
  dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(2000))
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  images, labels = dataset.make_one_shot_iterator().get_next()
  tf.image_summary('training_images', images)
  return images, tf.reshape(labels, [batch_size])


def test_inputs(data_dir, batch_size):
  """Centre-cropped, whitened test images in file order."""
  def parse_record_2(value):
    image, label = _decode(value)
    image = tf.image.resize_image_with_crop_or_pad(image, CROP, CROP)
    image = tf.image.per_image_whitening(image)
    label.set_shape([1])
    return image, label

  dataset_2 = tf.data.Dataset.from_tensor_slices([os.path.join(data_dir, 'test_batch.bin')])
  dataset_2 = dataset_2.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=RECORD_BYTES))
  dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
  dataset_2 = dataset_2.repeat()
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  images, labels = dataset_2.make_one_shot_iterator().get_next()
  return images, tf.reshape(labels, [batch_size])
