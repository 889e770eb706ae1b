"""Trains a linear model on the training batches until the input runs out."""
import sys

import tensorflow as tf

from data import records


def train(files, batch_size=10):
    features, example_id = records.train_inputs(files, batch_size)
    weights = tf.Variable(tf.zeros([3, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - tf.cast(example_id[:, None], tf.float32)))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    steps = 0
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while True:
                sess.run(step)
                steps += 1
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
    return steps


if __name__ == '__main__':
    print(train(sys.argv[1:]))
