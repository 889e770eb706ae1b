"""Train a linear model on MNIST records; the decoding lives in mnist_records."""
import sys

import tensorflow as tf

from mnist_records import IMAGE_PIXELS, decode_digit


def training_batches(files, batch_size, epochs):
  """Shuffled batches of (image, label), `epochs` passes over the files."""
  with tf.name_scope('train_input'):
    def parse_record(serialized):
      image, label = decode_digit(serialized, IMAGE_PIXELS)
      return image, label

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(500, epochs))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    images, labels = dataset.make_one_shot_iterator().get_next()
  return images, labels


def main(files):
  images, labels = training_batches(files, 32, 2)
  logits = tf.layers.dense(images, 10)
  loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
  train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
  with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    try:
      while True:
        sess.run(train_op)
    except tf.errors.OutOfRangeError:
      pass


if __name__ == '__main__':
  main(sys.argv[1:])
