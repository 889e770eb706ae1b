"""Rows fed from a thread, dequeued one at a time and batched, in shapes whose record path
qmigrate does not move into the dataset: the queue becomes a dataset read one record at a time,
and each batching stays a queue, saying why."""
import threading

import tensorflow as tf


def rows_with_a_step_between(sess, rows, batch_size):
    rows_in = tf.placeholder(tf.float32, shape=[None, 3])
    queue = tf.FIFOQueue(32, [tf.float32], shapes=[[3]])
    push = queue.enqueue_many([rows_in])
    row = queue.dequeue()
    row = row * 2.0
    step = tf.train.get_or_create_global_step()
    rows_batch, = tf.train.batch([row], batch_size=batch_size)

    def feed():
        sess.run(push, feed_dict={rows_in: rows})

    threading.Thread(target=feed).start()
    return rows_batch, step


def rows_kept_beside_the_batch(sess, rows, batch_size):
    values_in = tf.placeholder(tf.float32, shape=[None, 3])
    pool = tf.FIFOQueue(32, [tf.float32], shapes=[[3]])
    fill = pool.enqueue_many([values_in])
    row = pool.dequeue()
    row = row + 1.0
    rows_batch, = tf.train.batch([row], batch_size=batch_size)
    tf.summary.histogram("row", row)

    def feed_values():
        sess.run(fill, feed_dict={values_in: rows})

    threading.Thread(target=feed_values).start()
    return rows_batch
