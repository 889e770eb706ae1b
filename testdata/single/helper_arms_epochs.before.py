"""A batching helper whose arms differ in shuffling and in keeping the last, smaller batch (the
training arm shuffles, the evaluation arm keeps a whole epoch), called with the caller's flag."""
import tensorflow as tf

_FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def _batches(x, ident, min_queue_examples, batch_size, shuffle):
    if shuffle:
        xs, ids = tf.train.shuffle_batch([x, ident], batch_size=batch_size, num_threads=1,
                                         capacity=min_queue_examples + 3 * batch_size,
                                         min_after_dequeue=min_queue_examples)
    else:
        xs, ids = tf.train.batch([x, ident], batch_size=batch_size, num_threads=1,
                                 capacity=min_queue_examples + 3 * batch_size, allow_smaller_final_batch=True)
    return ids, xs


def inputs(files, batch_size, train=True, num_epochs=None):
    queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=train)
    _, serialized = tf.TFRecordReader().read(queue)
    example = tf.parse_single_example(serialized, _FEATURES)
    return _batches(example['x'], example['id'], 20, batch_size, shuffle=train)
