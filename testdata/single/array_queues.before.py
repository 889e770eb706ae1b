"""Hand-built queues filled by queue runners with the rows of arrays made in memory
(`enqueue_many` of NumPy arrays): each run of the enqueue op puts in every row again, in order,
so the queue gives the rows over and over (mixed, by a shuffling queue)."""
import numpy as np
import tensorflow as tf

# Made once, at import: 30 rows of 2 features (float64, as NumPy makes them), and their ids.
FEATURES = np.arange(60, dtype=np.float64).reshape(30, 2) / 4.0
IDS = np.arange(30)


def ordered_rows():
    """One row per step, in the order of the arrays; the queue casts them to its dtypes."""
    queue = tf.FIFOQueue(capacity=10, dtypes=[tf.float32, tf.int32], shapes=[[2], []])
    enqueue_op = queue.enqueue_many([FEATURES, IDS])
    features, ids = queue.dequeue()
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op] * 3))
    # One row per step: the caller sees a batch of one.
    return tf.expand_dims(features, 0), tf.expand_dims(ids, 0)


def mixed_batches(count, batch_size, seed=None):
    """Rows drawn once, at random, then mixed by a shuffling queue and taken a batch at a time."""
    values = 10 * np.random.RandomState(5).randn(count, 3) + 1
    ids = np.arange(count)
    # Examples wait here until enough are in to mix them.
    queue = tf.RandomShuffleQueue(capacity=4 * batch_size, min_after_dequeue=2 * batch_size,
                                  dtypes=[tf.float32, tf.int64], shapes=[[3], []], seed=seed)
    enqueue = queue.enqueue_many([values, ids])
    runner = tf.train.QueueRunner(queue, [enqueue, enqueue])
    tf.train.add_queue_runner(runner)
    batch = queue.dequeue_many(batch_size)
    return batch


def table_batches(batch_size):
    """A queue of one array: its dequeue gives a tensor, not a list of one."""
    queue = tf.FIFOQueue(50, tf.float32, shapes=[[2]])
    fill = queue.enqueue_many(FEATURES)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [fill]))
    rows = queue.dequeue_many(batch_size)
    return rows


def given_rows(rows, batch_size):
    """A parameter: what the caller passes is not known to be an array made once."""
    queue = tf.FIFOQueue(50, tf.float32, shapes=[[2]])
    fill = queue.enqueue_many([rows])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [fill]))
    batch = queue.dequeue_many(batch_size)
    return batch


def watched_rows(batch_size):
    """The queue's size is read too: the queue stays."""
    queue = tf.FIFOQueue(50, tf.float32, shapes=[[2]])
    fill = queue.enqueue_many([FEATURES])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [fill]))
    tf.summary.scalar('queue_size', queue.size())
    batch = queue.dequeue_many(batch_size)
    return batch
