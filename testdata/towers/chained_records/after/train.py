"""Trains a linear model on shuffled batches until the input runs out."""
import sys

import tensorflow as tf

import data.factory as datasets


def inputs(data_dir, batch_size):
    dataset = datasets.get_examples(data_dir, 'dict', training=True)

    def set_shapes(x, example_id):
        x.set_shape([3])
        example_id.set_shape([])
        return x, example_id

    dataset = dataset.map(set_shapes)
    dataset = dataset.shuffle(20)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    x, example_id = dataset.make_one_shot_iterator().get_next()
    return x, example_id


def train(data_dir, batch_size=10):
    features, example_id = inputs(data_dir, batch_size)
    weights = tf.Variable(tf.zeros([3, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - tf.cast(example_id[:, None], tf.float32)))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    steps = 0
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        try:
            while True:
                sess.run(step)
                steps += 1
        except tf.errors.OutOfRangeError:
            pass
    return steps


if __name__ == '__main__':
    print(train(sys.argv[1]))
