"""A loader that pushes rows kept in numpy arrays into a FIFOQueue from a thread, in blocks, and
batches them one record at a time: each record is scaled and shifted on its way, then batched
with or without a shuffle."""
import threading

import numpy as np
import tensorflow as tf


class RowLoader(object):
    BLOCK = 8

    def __init__(self, sess, batch_size, buffered=64, keep_back=8):
        self.sess = sess
        self.batch_size = batch_size
        self.buffered = buffered
        self.keep_back = keep_back

    def batches(self, rows, ids, shuffle=False, scale=False):
        width = rows.shape[1]
        rows_in = tf.placeholder(tf.float32, shape=[self.BLOCK, width])
        ids_in = tf.placeholder(tf.int64, shape=[self.BLOCK])
        self.queue = tf.FIFOQueue(self.buffered, [tf.float32, tf.int64], shapes=[[width], []])
        push = self.queue.enqueue_many([rows_in, ids_in])
        row, ident = self.queue.dequeue()

        # per record: optional scaling, then a shift
        if scale:
            row = row * 2.0
        row = row + 1.0

        if shuffle:
            row_batch, id_batch = tf.train.shuffle_batch([row, ident], batch_size=self.batch_size,
                                                         capacity=self.buffered, min_after_dequeue=self.keep_back,
                                                         seed=5)
        else:
            row_batch, id_batch = tf.train.batch([row, ident], batch_size=self.batch_size, capacity=self.buffered)

        def push_blocks(sess):
            for start in range(0, len(rows), self.BLOCK):
                if self.coord.should_stop():
                    break
                end = start + self.BLOCK
                sess.run(push, feed_dict={rows_in: rows[start:end], ids_in: ids[start:end]})

        pusher = threading.Thread(target=push_blocks, args=(self.sess,))
        pusher.daemon = True
        self.coord = tf.train.Coordinator()
        self.threads = tf.train.start_queue_runners(sess=self.sess, coord=self.coord)
        pusher.start()
        return row_batch, id_batch

    def close(self):
        self.queue.close(cancel_pending_enqueues=True)
        self.coord.request_stop()
        self.coord.join(self.threads)
