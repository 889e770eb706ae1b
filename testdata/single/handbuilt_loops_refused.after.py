"""Hand-built queues filled by a loop of readers, or a queue class picked by a test that cannot be
followed: each stays, with the reason (but for unequal_choice, migrated since its capacities no
longer count against it)."""
import tensorflow as tf

from . import shards


def mixed_records(pattern, batch_size, num_readers=2):
    files = shards.Shards(pattern)
    file_queue = tf.train.string_input_producer(files.names(), shuffle=True)
    pool = tf.RandomShuffleQueue(capacity=200, min_after_dequeue=100, dtypes=[tf.string])
    fills = []
    for _ in range(num_readers):
        reader = files.make_reader()
        _, record = reader.read(file_queue)
        fills.append(pool.enqueue([record]))
    tf.train.add_queue_runner(tf.train.QueueRunner(pool, fills))
    record = pool.dequeue()
    x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
    return tf.train.batch([x], batch_size)


def unequal_choice(path, batch_size, shuffle=True):
    """Capacities that differ only say how much each queue held: one dataset, shuffled with the
    RandomShuffleQueue's buffer when `shuffle` holds."""
    def parse_record(record):
        serialized = record
        x = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
        return x

    dataset = tf.data.Dataset.from_tensor_slices([path])
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    if shuffle:
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20))
    else:
        dataset = dataset.repeat()
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()


def configured_choice(path, batch_size, config):
    file_queue = tf.train.string_input_producer([path], shuffle=False)
    if config.shuffle:
        records = tf.RandomShuffleQueue(capacity=50, min_after_dequeue=20, dtypes=[tf.string])
    else:
        records = tf.FIFOQueue(capacity=50, dtypes=[tf.string])
    _, record = tf.TFRecordReader().read(file_queue)
    fills = []
    fills.append(records.enqueue([record]))
    tf.train.add_queue_runner(tf.train.QueueRunner(records, fills))
    serialized = records.dequeue()
    x = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
    return tf.train.batch([x], batch_size)
