"""shuffle_batch spelled by hand: a RandomShuffleQueue filled with parsed records by a QueueRunner of
several threads, dequeued in batches; and a named FIFOQueue of dicts, drained with dequeue_up_to."""
import tensorflow as tf
from tensorflow.python.ops import data_flow_ops

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def shuffled_batches(files, batch_size, num_threads=2):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x = parsed['x'] * 2.0
    example_id = parsed['id']

    # Examples wait here until enough are in to mix them.
    queue = tf.RandomShuffleQueue(capacity=4 * batch_size, min_after_dequeue=2 * batch_size,
                                  dtypes=[tf.float32, tf.int64], shapes=[[3], []], seed=11)
    enqueue = queue.enqueue([x, example_id])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * num_threads))
    xs, ids = queue.dequeue_many(batch_size)
    return xs, ids


def named_batches(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = parsed['x'], parsed['id']
    queue = data_flow_ops.FIFOQueue(64, [tf.float32, tf.int64], shapes=[[3], []], names=['x', 'id'])
    enqueue_op = queue.enqueue({'x': x, 'id': example_id})
    runner = tf.train.queue_runner.QueueRunner(queue, [enqueue_op, enqueue_op])
    tf.train.queue_runner.add_queue_runner(runner)
    return queue.dequeue_up_to(batch_size)
