"""Queues fed from Python threads that qmigrate leaves as they are, each for its own reason."""
import threading

import tensorflow as tf


class StepCountingFeeder(object):
    """The producer loop also runs another op with the session: it is more than a feeder."""

    def __init__(self, rows, batch_size):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [3])
        self.step = tf.assign_add(tf.train.get_or_create_global_step(), 1)
        self.queue = tf.FIFOQueue(16, [tf.float32], shapes=[[3]])
        self.enqueue = self.queue.enqueue([self.x])
        self.xs = self.queue.dequeue_many(batch_size)

    def thread_main(self, sess):
        for row in self.rows:
            sess.run(self.enqueue, feed_dict={self.x: row})
            sess.run(self.step)

    def start(self, sess):
        thread = threading.Thread(target=self.thread_main, args=(sess,))
        thread.start()


class ManyThreadsFeeder(object):
    """Several threads run the same producer: each would yield every row."""

    def __init__(self, rows, batch_size):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [3])
        self.queue = tf.FIFOQueue(16, [tf.float32], shapes=[[3]])
        self.enqueue = self.queue.enqueue([self.x])
        self.xs = self.queue.dequeue_many(batch_size)

    def thread_main(self, sess):
        for row in self.rows:
            sess.run(self.enqueue, feed_dict={self.x: row})

    def start(self, sess, n_threads=4):
        for _ in range(n_threads):
            thread = threading.Thread(target=self.thread_main, args=(sess,))
            thread.daemon = True
            thread.start()


class WeightedFeeder(object):
    """The loop feeds a placeholder the enqueue op does not read."""

    def __init__(self, rows, batch_size):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [3])
        self.weight = tf.placeholder(tf.float32, [])
        self.queue = tf.FIFOQueue(16, [tf.float32], shapes=[[3]])
        self.enqueue = self.queue.enqueue([self.x])
        self.xs = self.queue.dequeue_many(batch_size) * self.weight

    def thread_main(self, sess):
        for row in self.rows:
            sess.run(self.enqueue, feed_dict={self.x: row, self.weight: 0.5})

    def start(self, sess):
        threading.Thread(target=self.thread_main, args=(sess,)).start()


class DequeueElsewhere(object):
    """The dequeue is a method of its own: every call would build its own dataset and generator."""

    def __init__(self, rows):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [3])
        self.queue = tf.FIFOQueue(16, [tf.float32], shapes=[[3]])
        self.enqueue = self.queue.enqueue([self.x])

    def dequeue(self, n):
        return self.queue.dequeue_many(n)

    def thread_main(self, sess):
        for row in self.rows:
            sess.run(self.enqueue, feed_dict={self.x: row})

    def start(self, sess):
        threading.Thread(target=self.thread_main, args=(sess,)).start()


def preloading(batch_size):
    """The enqueue op leaves the function that builds it: the loop that runs it is elsewhere."""
    x = tf.placeholder(tf.float32, [3])
    queue = tf.FIFOQueue(16, [tf.float32], shapes=[[3]])
    enqueue_op = queue.enqueue([x])
    return queue.dequeue_many(batch_size), enqueue_op, x


def load_and_enqueue(sess, enqueue_op, x, rows):
    for row in rows:
        sess.run(enqueue_op, feed_dict={x: row})


class PrimedFeeder(object):
    """The thread function is also called directly, to prime the queue before the thread starts."""

    def __init__(self, rows, batch_size):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [3])
        self.queue = tf.FIFOQueue(16, [tf.float32], shapes=[[3]])
        self.enqueue = self.queue.enqueue([self.x])
        self.xs = self.queue.dequeue_many(batch_size)

    def feed(self, sess):
        for row in self.rows:
            sess.run(self.enqueue, feed_dict={self.x: row})

    def start(self, sess):
        self.feed(sess)
        threading.Thread(target=self.feed, args=(sess,)).start()
