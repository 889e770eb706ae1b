"""A hand-built queue filled by a loop of readers on one file queue, each adding its enqueue op to
the list the QueueRunner runs: the files are read several at a time into the queue."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def pooled_batches(files, batch_size, num_readers=3):
    file_queue = tf.train.string_input_producer(files, num_epochs=1)
    # Raw records from every reader are mixed here before they are parsed.
    pool = tf.RandomShuffleQueue(capacity=40, min_after_dequeue=20, dtypes=[tf.string])
    fills = []
    for _ in range(num_readers):
        reader = tf.TFRecordReader()
        _, record = reader.read(file_queue)
        fills.append(pool.enqueue([record]))
    tf.train.add_queue_runner(tf.train.QueueRunner(pool, fills))
    serialized = pool.dequeue()
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size)


def parsed_in_readers(files, batch_size, num_readers=2):
    file_queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    examples = tf.FIFOQueue(64, [tf.float32, tf.int64], shapes=[[3], []])
    enqueue_ops = []
    for _ in range(num_readers):
        _, serialized = tf.TFRecordReader().read(file_queue)
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'] * 2.0, parsed['id']
        enqueue_ops.append(examples.enqueue([x, example_id]))
    tf.train.add_queue_runner(tf.train.QueueRunner(examples, enqueue_ops))
    return examples.dequeue_many(batch_size)
