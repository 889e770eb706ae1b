"""Queues fed from Python that qmigrate leaves as they are: branches, helpers and lists it cannot
follow to one producer, each reported with the construct and its line."""
import threading

import tensorflow as tf


class QueuePerArm(object):
    """One name, a queue of its own in each arm of an if: which one is fed depends on the arm."""

    def __init__(self, rows, with_mask):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [3])
        self.mask = tf.placeholder(tf.float32, [3])
        if with_mask:
            q = tf.FIFOQueue(8, [tf.float32, tf.float32])
            self.enqueue = q.enqueue([self.x, self.mask])
            self.x_out, self.mask_out = q.dequeue()
        else:
            q = tf.FIFOQueue(8, [tf.float32])
            self.enqueue = q.enqueue([self.x])
            self.x_out = q.dequeue()

    def thread_main(self, sess):
        for row in self.rows:
            sess.run(self.enqueue, feed_dict={self.x: row})

    def start(self, sess):
        threading.Thread(target=self.thread_main, args=(sess,)).start()


class EnqueuePerArm(object):
    """One queue, an enqueue op in each arm of an if (one row, or many at once)."""

    def __init__(self, rows, many):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [None, 3])
        self.queue = tf.FIFOQueue(8, [tf.float32], shapes=[[3]])
        if many:
            self.enqueue = self.queue.enqueue_many([self.x])
        else:
            self.enqueue = self.queue.enqueue([self.x])
        self.xs = self.queue.dequeue_many(4)

    def thread_main(self, sess):
        for row in self.rows:
            sess.run(self.enqueue, feed_dict={self.x: row})

    def start(self, sess):
        threading.Thread(target=self.thread_main, args=(sess,)).start()


class RunnerCopies(object):
    """The enqueue op goes to a queue runner of the program's own, in several copies."""

    def __init__(self, make_runner, rows, n_threads):
        self.x = tf.placeholder(tf.float32, [None, 3])
        self.queue = tf.FIFOQueue(8, [tf.float32], shapes=[[3]])
        enqueue = self.queue.enqueue_many([self.x])
        self.runner = make_runner(self.queue, [enqueue] * n_threads, feed=lambda: {self.x: rows})
        self.xs = self.queue.dequeue_many(4)


class ChangedList(object):
    """The list of placeholders the queue reads is changed after the queue took it."""

    def __init__(self, rows):
        self.rows = rows
        self._placeholders = [tf.placeholder(tf.float32, [3])]
        dtypes = [tf.float32]
        if len(rows) > 4:
            self._placeholders.append(tf.placeholder(tf.float32, [3]))
            dtypes.append(tf.float32)
        queue = tf.FIFOQueue(8, dtypes)
        self._enqueue = queue.enqueue(self._placeholders)
        self.a, self.b = queue.dequeue()
        self._placeholders.extend(self.more())

    def more(self):
        return []

    def run_feed(self, sess):
        for row in self.rows:
            sess.run(self._enqueue, feed_dict=dict(zip(self._placeholders, row)))

    def start(self, sess):
        threading.Thread(target=self.run_feed, args=(sess,)).start()


class EnqueueThread(threading.Thread):
    """A feeder of the program's own: it builds the enqueue op of the queue it is handed."""

    def __init__(self, queue, rows, placeholders):
        super(EnqueueThread, self).__init__()
        self.rows, self.placeholders = rows, placeholders
        self.op = queue.enqueue(placeholders)

    def run(self):
        for row in self.rows:
            self.op.run(feed_dict=dict(zip(self.placeholders, row)))


class HandedQueue(object):
    """The queue is handed to that feeder, which fills it in another class."""

    def __init__(self, rows, placeholders):
        self.queue = tf.FIFOQueue(8, [p.dtype for p in placeholders])
        self.thread = EnqueueThread(self.queue, rows, placeholders)
        self.xs = self.queue.dequeue()


class QueuePerSlot(object):
    """A queue per batch slot, each filled by a thread of its own."""

    def __init__(self, n_slots):
        self.x = tf.placeholder(tf.float32, [3])
        self.queues, self.enqueue_ops = [], []
        for _ in range(n_slots):
            q = tf.FIFOQueue(8, [tf.float32], shapes=[[3]])
            self.queues.append(q)
            self.enqueue_ops.append(q.enqueue([self.x]))
