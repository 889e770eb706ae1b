"""Examples kept in numpy arrays, pushed in chunks by a thread into a queue whose element shapes are
read from the arrays themselves; the model takes batches of 8."""
import threading

import tensorflow as tf

CHUNK = 16


def push_chunks(sess, enqueue_op, values_in, ids_in, values, ids):
    for start in range(0, len(ids), CHUNK):
        sess.run(enqueue_op, feed_dict={values_in: values[start:start + CHUNK], ids_in: ids[start:start + CHUNK]})


def build_input(sess, values, ids, batch_size):
    values_in = tf.placeholder(tf.float32, [None, None, None])
    ids_in = tf.placeholder(tf.int64, [None])
    queue = tf.FIFOQueue(capacity=64, dtypes=[tf.float32, tf.int64],
                         shapes=[values.shape[1:], ids.shape[1:]])
    enqueue_op = queue.enqueue_many([values_in, ids_in])
    batch, batch_ids = queue.dequeue_many(batch_size)

    thread = threading.Thread(target=push_chunks, args=(sess, enqueue_op, values_in, ids_in, values, ids))
    thread.daemon = True
    thread.start()
    return batch, batch_ids
