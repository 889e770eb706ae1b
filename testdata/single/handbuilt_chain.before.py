"""A chain of queues: readers fill an example queue of serialized records, a batching call after
its dequeue parses and batches them (the shape of the Inception-era input code)."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def chained(files, batch_size, num_readers=3):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, value = reader.read(filename_queue)
    examples_queue = tf.FIFOQueue(capacity=32, dtypes=[tf.string], shapes=[[]])
    enqueue_op = examples_queue.enqueue([value])
    runner = tf.train.QueueRunner(examples_queue, [enqueue_op] * num_readers)
    tf.train.add_queue_runner(runner)
    example_serialized = examples_queue.dequeue()

    parsed = tf.parse_single_example(example_serialized, _FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size=batch_size, num_threads=2,
                          allow_smaller_final_batch=True)


def shuffled_chain(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    reader = tf.TFRecordReader()
    _, value = reader.read(filename_queue)
    with tf.name_scope('example_queue'):
        examples_queue = tf.RandomShuffleQueue(capacity=40, min_after_dequeue=20, dtypes=[tf.string])
        enqueue_op = examples_queue.enqueue([value])
        tf.train.add_queue_runner(tf.train.QueueRunner(examples_queue, [enqueue_op]))
        example_serialized = examples_queue.dequeue()
    parsed = tf.parse_single_example(example_serialized, _FEATURES)
    xs, ids = tf.train.batch([parsed['x'], parsed['id']], batch_size=batch_size)
    return xs, ids


def prefetched_batches(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, value = reader.read(filename_queue)
    parsed = tf.parse_single_example(value, _FEATURES)
    xs, ids = tf.train.batch([parsed['x'], parsed['id']], batch_size=batch_size)
    # Whole batches wait here, so the model never waits for the batching.
    batch_queue = tf.FIFOQueue(capacity=4, dtypes=[tf.float32, tf.int64], shapes=[[batch_size, 3], [batch_size]])
    enqueue_batch = batch_queue.enqueue([xs, ids])
    tf.train.add_queue_runner(tf.train.QueueRunner(batch_queue, [enqueue_batch] * 2))
    xs, ids = batch_queue.dequeue()
    return xs, ids
