"""A loop of readers fills a hand-built shuffling queue, dequeued once; a batch_join's threads
each parse that one dequeued record (a loop copying the parsing code): each thread's run
dequeued its own record, so the copies become one map function run n at a time (copies that
read the loop's variable: thread_copies). A loop whose copies carry a value from one to the
next stays, with the reason."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def joined_batches(files, batch_size, num_readers=2, num_threads=4, num_epochs=None):
    with tf.name_scope('joined_inputs'):
        file_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=True, capacity=8)
        if num_threads % 2:
            raise ValueError('num_threads must be even')

        # Serialized records of every reader are mixed before any is parsed.
        mixing = 20
        pool = tf.RandomShuffleQueue(capacity=mixing + 3 * batch_size, min_after_dequeue=mixing,
                                     dtypes=[tf.string])
        fills = []
        for _ in range(num_readers):
            reader = tf.TFRecordReader()
            _, value = reader.read(file_queue)
            fills.append(pool.enqueue([value]))
        tf.train.queue_runner.add_queue_runner(tf.train.queue_runner.QueueRunner(pool, fills))
        serialized = pool.dequeue()

        rows = []
        for _ in range(num_threads):
            parsed = tf.parse_single_example(serialized, _FEATURES)

            # Each thread scales its own copy.
            x = parsed['x'] * 2.0
            x.set_shape([3])
            rows.append([x, parsed['id']])

        xs, ids = tf.train.batch_join(rows, batch_size=batch_size, capacity=2 * num_threads * batch_size)
        xs = tf.reshape(xs, [batch_size, 3])
        return xs, tf.reshape(ids, [batch_size])


def read_once_then_join(files, batch_size):
    # The one read is run again by each of the join's threads.
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(file_queue)
    examples = []
    for _ in range(3):
        parsed = tf.parse_single_example(value, _FEATURES)
        examples.append({'x': parsed['x'], 'id': parsed['id']})
    return tf.train.batch_join(examples, batch_size=batch_size, allow_smaller_final_batch=True)


def decoded_in_append(files, batch_size):
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(file_queue)
    rows = []
    for _ in range(2):
        rows.append([tf.parse_single_example(value, _FEATURES)['id']])
    return tf.train.batch_join(rows, batch_size=batch_size)


def numbered_threads(files, batch_size):
    file_queue = tf.train.string_input_producer(files, num_epochs=1)
    _, value = tf.TFRecordReader().read(file_queue)
    rows = []
    for thread in range(2):
        parsed = tf.parse_single_example(value, _FEATURES)
        rows.append([parsed['x'] + tf.to_float(thread), parsed['id']])
    return tf.train.batch_join(rows, batch_size=batch_size)


def carried_offset(files, batch_size):
    file_queue = tf.train.string_input_producer(files, num_epochs=1)
    _, value = tf.TFRecordReader().read(file_queue)
    offset = tf.constant(0.0)
    rows = []
    for _ in range(2):
        parsed = tf.parse_single_example(value, _FEATURES)
        offset = offset + 1.0
        rows.append([parsed['x'] + offset, parsed['id']])
    return tf.train.batch_join(rows, batch_size=batch_size)
