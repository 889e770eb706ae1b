"""Train on the digits of one file: shuffled batches of the records DigitReader reads."""
import sys

import tensorflow as tf

from digits import records


def training_batches(files, batch_size, epochs):
    """Shuffled batches of (image, label), `epochs` passes over the first file."""
    decoder = records.DigitIO().reader
    image, label = decoder.read_digits(files[0],
                                       epochs=epochs)
    images, labels = tf.train.shuffle_batch(
        [image, label], batch_size=batch_size, capacity=100 + 3 * batch_size, min_after_dequeue=30, num_threads=2)
    return images, labels


def main(files):
    images, labels = training_batches(files, 16, 2)
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
