"""Hand-built queues that stay as they are: one whose size is also summarised, one filled by a
QueueRunner subclass with its own loop, one whose runner is started by hand, and a priority queue."""
import tensorflow as tf


class CountingRunner(tf.train.QueueRunner):
    """Runs its enqueue op and counts the records: a loop of its own, not a plain runner."""

    def _run(self, sess, enqueue_op, coord=None):
        self.count = 0
        while not (coord and coord.should_stop()):
            sess.run(enqueue_op)
            self.count += 1


def summarised(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, value = tf.TFRecordReader().read(filename_queue)
    queue = tf.RandomShuffleQueue(capacity=100, min_after_dequeue=50, dtypes=[tf.string], shapes=[[]])
    enqueue = queue.enqueue([value])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 4))
    tf.summary.scalar('queue_fill', queue.size())
    return queue.dequeue_many(batch_size)


def counted(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, value = tf.TFRecordReader().read(filename_queue)
    queue = tf.FIFOQueue(capacity=100, dtypes=[tf.string], shapes=[[]])
    enqueue = queue.enqueue([value])
    tf.train.add_queue_runner(CountingRunner(queue, [enqueue]))
    return queue.dequeue_many(batch_size)


def started_by_hand(sess, coord, files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, value = tf.TFRecordReader().read(filename_queue)
    queue = tf.FIFOQueue(capacity=100, dtypes=[tf.string], shapes=[[]])
    enqueue = queue.enqueue([value])
    runner = tf.train.QueueRunner(queue, [enqueue] * 2)
    runner.create_threads(sess, coord=coord, start=True)
    return queue.dequeue_many(batch_size)


def by_priority(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, value = tf.TFRecordReader().read(filename_queue)
    priority = tf.cast(tf.size(tf.string_split([value], delimiter="")), tf.int64)
    queue = tf.PriorityQueue(capacity=100, types=[tf.string], shapes=[[]])
    enqueue = queue.enqueue([priority, value])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue]))
    return queue.dequeue_many(batch_size)


def shuffled_twice(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, value = tf.TFRecordReader().read(filename_queue)
    examples = tf.RandomShuffleQueue(capacity=100, min_after_dequeue=50, dtypes=[tf.string], shapes=[[]])
    enqueue = examples.enqueue([value])
    tf.train.add_queue_runner(tf.train.QueueRunner(examples, [enqueue] * 2))
    example = examples.dequeue()
    length = tf.size(tf.string_split([example], delimiter=""))
    return tf.train.shuffle_batch([example, length], batch_size, capacity=200, min_after_dequeue=100)
