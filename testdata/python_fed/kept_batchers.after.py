"""Rows fed from a thread, dequeued one at a time and batched, in shapes whose record path
qmigrate does not move into the dataset: the queue becomes a dataset read one record at a time,
and each batching stays a queue, saying why."""

import tensorflow as tf


def rows_with_a_step_between(sess, rows, batch_size):

    def feed():
        yield rows

    dataset = tf.data.Dataset.from_generator(feed, output_types=tf.float32, output_shapes=[None, 3])
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.prefetch(32)
    row = dataset.make_one_shot_iterator().get_next()
    row = row * 2.0
    step = tf.train.get_or_create_global_step()
    rows_batch, = tf.train.batch([row], batch_size=batch_size)

    return rows_batch, step


def rows_kept_beside_the_batch(sess, rows, batch_size):

    def feed_values():
        yield rows

    dataset = tf.data.Dataset.from_generator(feed_values, output_types=tf.float32, output_shapes=[None, 3])
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.prefetch(32)
    row = dataset.make_one_shot_iterator().get_next()
    row = row + 1.0
    rows_batch, = tf.train.batch([row], batch_size=batch_size)
    tf.summary.histogram("row", row)

    return rows_batch
