"""A queue class chosen by a flag (a RandomShuffleQueue when shuffling, else a FIFOQueue), its one
enqueue op kept in a list for the QueueRunner: one queue that shuffles when the flag says so."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def flagged_batches(files, batch_size, shuffle=True):
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    if shuffle:
        examples = tf.RandomShuffleQueue(capacity=40, min_after_dequeue=20, dtypes=[tf.string], seed=3,
                                         name='mixed_examples')
    else:
        examples = tf.FIFOQueue(capacity=40, dtypes=[tf.string], name='ordered_examples')
    _, serialized = tf.TFRecordReader().read(file_queue)
    fills = [examples.enqueue([serialized])]
    tf.train.add_queue_runner(tf.train.QueueRunner(examples, fills))
    record = examples.dequeue()
    parsed = tf.parse_single_example(record, _FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size)


def ordered_or_mixed(files, batch_size, in_order=False):
    file_queue = tf.train.string_input_producer(files, num_epochs=1)
    _, serialized = tf.TFRecordReader().read(file_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = parsed['x'] + 1.0, parsed['id']
    if in_order:
        pool = tf.FIFOQueue(4 * batch_size, [tf.float32, tf.int64], shapes=[[3], []])
    else:
        pool = tf.RandomShuffleQueue(4 * batch_size, 2 * batch_size, [tf.float32, tf.int64], shapes=[[3], []])
    fills = []
    fills.append(pool.enqueue([x, example_id]))
    tf.train.add_queue_runner(tf.train.QueueRunner(pool, fills))
    return pool.dequeue_many(batch_size)


def sized_by_mode(files, batch_size, train=True):
    """Inception's pair: a bigger, shuffling queue for training, a smaller FIFOQueue otherwise. The
    capacities only said how much each held: one dataset, shuffled with the RandomShuffleQueue's
    buffer when training."""
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    per_shard = 25
    if train:
        examples = tf.RandomShuffleQueue(capacity=per_shard * 2 + 3 * batch_size,
                                         min_after_dequeue=per_shard * 2, dtypes=[tf.string])
    else:
        examples = tf.FIFOQueue(capacity=per_shard + 3 * batch_size, dtypes=[tf.string])
    _, serialized = tf.TFRecordReader().read(file_queue)
    fills = [examples.enqueue([serialized])]
    tf.train.add_queue_runner(tf.train.QueueRunner(examples, fills))
    record = examples.dequeue()
    parsed = tf.parse_single_example(record, _FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size, allow_smaller_final_batch=True)
