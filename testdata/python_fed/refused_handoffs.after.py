"""Queues fed from Python whose producer qmigrate does not turn into a generator: an enqueue op held
by a queue runner that never starts, one returned to a caller that starts the thread, threads
started per worker, and queues per configuration whose producer lives in another module."""
import threading

import numpy as np
import tensorflow as tf


def fill_then_train(rows, labels, batch_size, train_op_for):
    rows_in = tf.placeholder(tf.float32, [None, 5])
    labels_in = tf.placeholder(tf.int32, [None])
    pool = tf.RandomShuffleQueue(capacity=100 * batch_size, min_after_dequeue=0, dtypes=[tf.float32, tf.int32],
                                 shapes=[[5], []])
    held = pool.size()
    fill = pool.enqueue_many([rows_in, labels_in])
    runner = tf.train.QueueRunner(pool, [fill])
    batch = pool.dequeue_many(batch_size)
    train_op = train_op_for(batch)
    sess = tf.Session()
    while sess.run(held) < 90 * batch_size:
        sess.run(runner.enqueue_ops, {rows_in: rows, labels_in: labels})
    while sess.run(held) > batch_size:
        sess.run(train_op)


def make_input(spec):
    holders = [tf.placeholder(tf.float32, shape) for shape in spec]
    queue = tf.FIFOQueue(10, [tf.float32] * len(spec))
    push_op = queue.enqueue(holders)
    return queue.dequeue(), push_op, holders


def pump(sess, push_op, source, holders):
    while True:
        sess.run(push_op, feed_dict=dict(zip(holders, source.next_item())))


def run(spec, source):
    tensors, push_op, holders = make_input(spec)
    sess = tf.Session()
    worker = threading.Thread(target=pump, args=(sess, push_op, source, holders))
    worker.start()
    return sess, tensors


class ArrayFeed(object):
    def __init__(self, columns, target):
        self.columns = columns
        self.target = target
        self.column_ins = [tf.placeholder(tf.float32, [None]) for _ in columns]
        self.target_in = tf.placeholder(tf.float32, [None])
        self.queue = tf.FIFOQueue(16, [tf.float32] * (len(columns) + 1))
        self.enqueue_op = self.queue.enqueue(self.column_ins + [self.target_in])

    def outputs(self):
        return self.queue.dequeue()

    def start(self, sess, workers=2):
        for _ in range(workers):
            thread = threading.Thread(target=self.work, args=(sess,))
            thread.daemon = True
            thread.start()

    def work(self, sess):
        while True:
            feed = {self.target_in: self.target}
            for holder, column in zip(self.column_ins, self.columns):
                feed[holder] = column
            sess.run(self.enqueue_op, feed_dict=feed)


class PerConfigQueues(object):
    def __init__(self, with_depth, with_mask):
        self.color = tf.placeholder(tf.float32, [None, 4])
        self.depth = tf.placeholder(tf.float32, [None, 4])
        self.mask = tf.placeholder(tf.float32, [None, 4])
        if with_depth:
            if with_mask:
                q = tf.FIFOQueue(8, [tf.float32, tf.float32, tf.float32])
                self.feed_op = q.enqueue([self.color, self.depth, self.mask])
                self.color_out, self.depth_out, self.mask_out = q.dequeue()
            else:
                q = tf.FIFOQueue(8, [tf.float32, tf.float32])
                self.feed_op = q.enqueue([self.color, self.depth])
                self.color_out, self.depth_out = q.dequeue()
        else:
            q = tf.FIFOQueue(8, [tf.float32])
            self.feed_op = q.enqueue([self.color])
            self.color_out = q.dequeue()


class ColumnsAndFlag(object):
    """Column placeholders added up with the target's, and a feed_dict that also sets a flag."""

    def __init__(self, columns, target):
        self.columns, self.target = columns, target
        self.column_ins = [tf.placeholder(tf.float32, [None]) for _ in columns]
        self.target_in = tf.placeholder(tf.float32, [None])
        self.training = tf.placeholder(tf.bool, [])
        self.queue = tf.FIFOQueue(16, [tf.float32] * (len(columns) + 1))
        self.enqueue_op = self.queue.enqueue(self.column_ins + [self.target_in])
        self.first, self.target_out = self.queue.dequeue()

    def work(self, sess):
        while True:
            feed = {self.target_in: self.target, self.training: True}
            for holder, column in zip(self.column_ins, self.columns):
                feed[holder] = column
            sess.run(self.enqueue_op, feed_dict=feed)

    def start(self, sess):
        threading.Thread(target=self.work, args=(sess,)).start()


class ArmsOfOtherShapes(object):
    """A queue per arm of an if, each holding rows of another width: not one dataset's elements."""

    def __init__(self, rows, wide):
        self.rows = rows
        self.x = tf.placeholder(tf.float32, [None])
        if wide:
            self.queue = tf.FIFOQueue(8, [tf.float32], shapes=[[6]])
        else:
            self.queue = tf.FIFOQueue(8, [tf.float32], shapes=[[3]])
        self.enqueue_op = self.queue.enqueue([self.x])
        self.xs = self.queue.dequeue_many(2)

    def work(self, sess):
        for row in self.rows:
            sess.run(self.enqueue_op, feed_dict={self.x: row})

    def start(self, sess):
        threading.Thread(target=self.work, args=(sess,)).start()


def keyed_input(widths):
    """A dict of placeholders, one per key, returned with the enqueue op to the caller."""
    holders = {key: tf.placeholder(tf.float32, shape=[width]) for (key, width) in widths.items()}
    holder_list = list(holders.values())
    queue = tf.FIFOQueue(16, [tf.float32] * len(widths))
    keyed_op = queue.enqueue(holder_list)
    parts = queue.dequeue()
    return dict(zip(holders.keys(), parts)), keyed_op, holders


def pump_keyed(sess, keyed_op, source, holders):
    while True:
        row = source.next_row()
        sess.run(keyed_op, feed_dict={holder: row[key] for (key, holder) in holders.items()})


def train_keyed(widths, source, steps):
    inputs, keyed_op, holders = keyed_input(widths)
    sess = tf.Session()
    threading.Thread(target=pump_keyed, args=(sess, keyed_op, source, holders)).start()
    for _ in range(steps):
        sess.run(inputs)
