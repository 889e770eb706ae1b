"""Train a linear model on MNIST records; the decoding lives in mnist_records."""
import sys

import tensorflow as tf

from mnist_records import IMAGE_PIXELS, decode_digit


def training_batches(files, batch_size, epochs):
  """Shuffled batches of (image, label), `epochs` passes over the files."""
  with tf.name_scope('train_input'):
    file_queue = tf.train.string_input_producer(files, num_epochs=epochs)
    image, label = decode_digit(file_queue, IMAGE_PIXELS)
    images, labels = tf.train.shuffle_batch(
        [image, label], batch_size=batch_size, num_threads=2,
        capacity=500 + 3 * batch_size, min_after_dequeue=500)
  return images, labels


def main(files):
  images, labels = training_batches(files, 32, 2)
  logits = tf.layers.dense(images, 10)
  loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
  train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
  with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
      while not coord.should_stop():
        sess.run(train_op)
    except tf.errors.OutOfRangeError:
      pass
    finally:
      coord.request_stop()
    coord.join(threads)


if __name__ == '__main__':
  main(sys.argv[1:])
