"""Trains a linear model on the training batches of a data set until the input runs out."""
import sys

import tensorflow as tf

from bench.inputs.predefined.points import Points


class Trainer:
    """Runs the optimisation steps over the data set's training batches."""

    def __init__(self, dataset, batch_size=10):
        self._dataset = dataset
        self._batch_size = batch_size

    def train(self):
        features, label = self._dataset.inputs('train', self._batch_size)
        weights = tf.Variable(tf.zeros([3, 1]))
        loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - tf.cast(label[:, None], tf.float32)))
        step = tf.train.GradientDescentOptimizer(0.001).minimize(loss)
        steps = 0
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while not coord.should_stop():
                    sess.run(step)
                    steps += 1
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads)
        return steps


if __name__ == '__main__':
    print(Trainer(Points(sys.argv[1:], num_epochs=2)).train())
