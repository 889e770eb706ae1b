"""An if/else whose arms each make the record that the code after it parses and batches: with
several readers the records pass through a queue of serialized records first (a shuffling one
for training), with one the reader's record is parsed as it comes (inception's batch_inputs has
this shape). The file queue and the queue of records are made in the arms that read them, and
the parsing and batching copied into each arm (record_arms), so each arm holds a whole chain."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def flip(x, train, thread_id):
    """Odd threads reverse the features in training: the copies differ by a Python number."""
    if train and thread_id % 2:
        x = tf.reverse(x, [0])
    return x


def batch_inputs(files, batch_size, train, num_epochs=None, num_threads=2, num_readers=1):
    with tf.name_scope('batch_inputs'):
        # Files in a new order each epoch for training.
        if train:
            files_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=True)
        else:
            files_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
        if num_threads % 2:
            raise ValueError('num_threads must be even, not %d' % num_threads)
        if num_readers is None:
            num_readers = 1

        least = 10 * batch_size
        if train:
            records = tf.RandomShuffleQueue(capacity=least + 3 * batch_size, min_after_dequeue=least,
                                            dtypes=[tf.string])
        else:
            records = tf.FIFOQueue(capacity=3 * batch_size, dtypes=[tf.string])

        if num_readers > 1:
            fills = []
            for _ in range(num_readers):
                _, value = tf.TFRecordReader().read(files_queue)
                fills.append(records.enqueue([value]))
            tf.train.add_queue_runner(tf.train.QueueRunner(records, fills))
            serialized = records.dequeue()
        else:
            reader = tf.TFRecordReader()
            _, serialized = reader.read(files_queue)

        rows = []
        for thread_id in range(num_threads):
            example = tf.parse_single_example(serialized, FEATURES)
            rows.append([flip(example['x'], train, thread_id), example['id']])
        xs, ids = tf.train.batch_join(rows, batch_size=batch_size, capacity=2 * num_threads * batch_size)
        return xs, tf.reshape(ids, [batch_size])


def id_batches(files, batch_size, train, num_epochs, num_readers):
    """The ids first (for the tests that drain it)."""
    xs, ids = batch_inputs(files, batch_size, train, num_epochs=num_epochs, num_readers=num_readers)
    return ids, xs


def either_reader(files, batch_size, compressed):
    """No queue made before the `if`: the batching after it is copied into each arm."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    if compressed:
        options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
        _, serialized = tf.TFRecordReader(options=options).read(queue)
    else:
        _, serialized = tf.TFRecordReader().read(queue)
    example = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch([example['x'], example['id']], batch_size=batch_size,
                          allow_smaller_final_batch=True)


def queue_read_after(files, batch_size, num_readers):
    """Left as it is: the file queue is read after the `if` too, so it cannot be made in the arms."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    if num_readers > 1:
        _, serialized = tf.TFRecordReader().read(queue)
    else:
        _, serialized = tf.TFRecordReader().read(queue)
    print(queue.name)
    example = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch([example['id']], batch_size=batch_size)
