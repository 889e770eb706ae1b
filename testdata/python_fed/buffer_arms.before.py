"""A queue chosen by a mode flag, nothing else in the arms of the if: a FIFOQueue of a size of its
own in each mode, and a RandomShuffleQueue that mixes everything it holds."""
import threading

import tensorflow as tf


def build_input(sess, rows, batch_size, mode):
    values = tf.placeholder(tf.float32, [None, 2])
    ids = tf.placeholder(tf.int64, [None])
    if mode == "eval":
        queue = tf.FIFOQueue(64, [tf.float32, tf.int64], shapes=[[2], []])
    elif mode == "train":
        queue = tf.RandomShuffleQueue(64, 0, [tf.float32, tf.int64], shapes=[[2], []])
    else:
        queue = tf.FIFOQueue(16, [tf.float32, tf.int64], shapes=[[2], []])
    enqueue_op = queue.enqueue_many([values, ids])

    def feed(sess):
        for chunk_values, chunk_ids in rows:
            sess.run(enqueue_op, feed_dict={values: chunk_values, ids: chunk_ids})

    threading.Thread(target=feed, args=(sess,)).start()
    return queue.dequeue_many(batch_size)
