"""A queue fed from a nested thread function through a list of placeholders, dequeued in one of two
ways chosen by a flag: whole batches only, or the last partial one too. Each row also carries a
label the queue does not take: zip() feeds only the placeholders there are."""
import threading

import tensorflow as tf


def build_input(sess, rows, batch_size, keep_last):
    placeholders = [tf.placeholder(tf.float32, [4]), tf.placeholder(tf.int64, [])]
    queue = tf.FIFOQueue(32, [tf.float32, tf.int64], shapes=[[4], []])
    enqueue_op = queue.enqueue(placeholders)

    def feed(sess):
        for row in rows:
            sess.run(enqueue_op, feed_dict=dict(zip(placeholders, row)))

    if keep_last:
        features, ids = queue.dequeue_up_to(batch_size)
    else:
        features, ids = queue.dequeue_many(batch_size)

    thread = threading.Thread(target=feed, args=(sess,))
    thread.daemon = True
    thread.start()
    return features, ids
