"""Trains on one example per step, the examples mixed by a queue of their own."""
import sys

import tensorflow as tf

from data import factory


def mixed_examples(data_dir, split_name='dict'):
    values, example_id = factory.get_examples(data_dir, split_name, is_training=True)
    example_queue = tf.RandomShuffleQueue(capacity=24, min_after_dequeue=10,
                                          dtypes=(values.dtype, example_id.dtype))
    enqueue_op = example_queue.enqueue((values, example_id))
    queue_runner = tf.train.QueueRunner(example_queue, [enqueue_op] * 4)
    tf.add_to_collection(tf.GraphKeys.QUEUE_RUNNERS, queue_runner)
    (values, example_id) = example_queue.dequeue()
    values = tf.reshape(values, (1, tf.shape(values)[1]))
    return values, tf.expand_dims(example_id, 0)


def train(data_dir):
    values, example_id = mixed_examples(data_dir)
    weights = tf.Variable(tf.zeros([3, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(values, weights) - tf.cast(example_id, tf.float32)))
    step = tf.train.GradientDescentOptimizer(0.001).minimize(loss)
    steps = 0
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = []
        for runner in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
            threads.extend(runner.create_threads(sess, coord=coord, daemon=True, start=True))
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
