"""Trains a linear model on shuffled batches until the input runs out."""
import sys

import tensorflow as tf

import data.factory as datasets


def inputs(data_dir, batch_size):
    x, example_id = datasets.get_examples(data_dir, 'dict', training=True)
    queue = tf.RandomShuffleQueue(capacity=40, min_after_dequeue=20,
                                  dtypes=(x.dtype, example_id.dtype), shapes=([3], []))
    enqueue_op = queue.enqueue((x, example_id))
    runner = tf.train.QueueRunner(queue, [enqueue_op] * 2)
    tf.add_to_collection(tf.GraphKeys.QUEUE_RUNNERS, runner)
    x, example_id = queue.dequeue_many(batch_size)
    return x, example_id


def train(data_dir, batch_size=10):
    features, example_id = inputs(data_dir, batch_size)
    weights = tf.Variable(tf.zeros([3, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - tf.cast(example_id[:, None], tf.float32)))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    steps = 0
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = []
        for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))
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
    print(train(sys.argv[1]))
