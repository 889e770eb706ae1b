"""Evaluation at one short side, a Python value."""
import tensorflow as tf

import pyramid_records


def evaluate(pattern, steps):
    images, labels = pyramid_records.next_batch(pattern, 8, 32, False)
    with tf.Session() as sess:
        for _ in range(steps):
            sess.run([images, labels])
