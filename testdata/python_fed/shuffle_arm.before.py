"""A feeder whose queue shuffles or not, as its caller chose: a RandomShuffleQueue in one arm of an
if, a FIFOQueue in the other, and one enqueue op and one dequeue after the if serving both."""
import threading

import tensorflow as tf


class WindowFeeder(object):
    def __init__(self, windows, batch_size, shuffle, capacity=32):
        self.windows = windows
        self.shuffle = shuffle
        self.window_in = tf.placeholder(tf.float32, [3])
        self.id_in = tf.placeholder(tf.int64, [])
        if self.shuffle:
            self.queue = tf.RandomShuffleQueue(capacity=capacity, min_after_dequeue=capacity // 2,
                                               dtypes=[tf.float32, tf.int64], shapes=[[3], []], seed=5)
            self.mixing = "shuffled"
        else:
            self.queue = tf.FIFOQueue(capacity=capacity, dtypes=[tf.float32, tf.int64], shapes=[[3], []])
            self.mixing = "in order"
        self.enqueue_op = self.queue.enqueue([self.window_in, self.id_in])
        self.windows_out, self.ids_out = self.queue.dequeue_up_to(batch_size)

    def push(self, sess):
        for index, window in enumerate(self.windows):
            sess.run(self.enqueue_op, feed_dict={self.window_in: window, self.id_in: index})

    def start(self, sess):
        thread = threading.Thread(target=self.push, args=(sess,))
        thread.daemon = True
        thread.start()
