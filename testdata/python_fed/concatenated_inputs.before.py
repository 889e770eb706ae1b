"""Arrays fed in chunks through a placeholder per input column and one for the target: the enqueue
takes the column placeholders, made by a comprehension, plus the target's, and the thread builds
its feed_dict key by key."""
import threading

import numpy as np
import tensorflow as tf


class ColumnFeeder(object):
    def __init__(self, columns, target, chunk_size):
        self.columns = [np.asarray(column, np.float32) for column in columns]
        self.target = np.asarray(target, np.int64)
        self.chunk_size = chunk_size
        self.column_ins = [tf.placeholder(tf.float32, [None] + list(column.shape[1:])) for column in self.columns]
        self.target_in = tf.placeholder(tf.int64, [None])
        self.queue = tf.FIFOQueue(8, [tf.float32] * len(self.columns) + [tf.int64])
        self.enqueue_op = self.queue.enqueue(self.column_ins + [self.target_in])
        self.first, self.second, self.labels = self.queue.dequeue()

    def chunks(self):
        for start in range(0, len(self.target), self.chunk_size):
            end = start + self.chunk_size
            yield [column[start:end] for column in self.columns], self.target[start:end]

    def thread_main(self, sess):
        for column_chunks, target_chunk in self.chunks():
            feed_dict = {self.target_in: target_chunk}
            for holder, values in zip(self.column_ins, column_chunks):
                feed_dict[holder] = values
            sess.run(self.enqueue_op, feed_dict=feed_dict)

    def start(self, sess):
        thread = threading.Thread(target=self.thread_main, args=(sess,))
        thread.daemon = True
        thread.start()
