"""Train a linear model on the photo features for a few steps."""
import sys

import tensorflow as tf

from photos import processing


def main(data_dir, steps=20):
    features, ids = processing.photo_inputs(16, data_dir=data_dir)
    logits = tf.layers.dense(features, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=ids % 10, logits=logits)
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train_op)


if __name__ == '__main__':
    main(sys.argv[1])
