"""A training script that shuffles examples kept in numpy arrays: a Python thread pushes them in
chunks into a RandomShuffleQueue (enqueue_many), the model takes shuffled batches from it."""
import threading

import numpy as np
import tensorflow as tf

CHUNK = 16


def load_chunks(sess, enqueue_op, features_in, ids_in, features, ids):
    for start in range(0, len(ids), CHUNK):
        end = start + CHUNK
        sess.run(enqueue_op, feed_dict={features_in: features[start:end], ids_in: ids[start:end]})


def train(features, ids, batch_size, steps, log=print):
    features_in = tf.placeholder(tf.float32, [None, 4])
    ids_in = tf.placeholder(tf.int64, [None])
    queue = tf.RandomShuffleQueue(capacity=256, min_after_dequeue=0, dtypes=[tf.float32, tf.int64],
                                  shapes=[[4], []], seed=11)
    enqueue_op = queue.enqueue_many([features_in, ids_in])
    batch, batch_ids = queue.dequeue_many(batch_size)
    total = tf.reduce_sum(batch, axis=1)

    sess = tf.Session()
    coord = tf.train.Coordinator()
    thread = threading.Thread(target=load_chunks, args=(sess, enqueue_op, features_in, ids_in, features, ids),
                              daemon=True)
    thread.start()
    for step in range(steps):
        log(sess.run([batch_ids, total]))
    coord.request_stop()
    sess.run(queue.close(cancel_pending_enqueues=True))
    thread.join()
    sess.close()
