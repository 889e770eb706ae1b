"""Example ids dequeued straight from a producer (no reader), each loaded in Python by a py_func:
into a dict of per-record tensors also returned beside its batches, and into plain names."""
import numpy as np
import tensorflow as tf


class IdTable(object):
    """Examples made up from their ids: a 2x3 float image and a one-hot label of 4 classes."""

    def __init__(self, count):
        self.ids = ['ex%04d' % i for i in range(count)]

    def load(self, example_id):
        number = int(example_id[2:])
        image = np.arange(6, dtype=np.float32).reshape(2, 3) + number
        label = np.eye(4, dtype=np.float32)[number % 4]
        return image, label


def id_example_ops(table, batch_size, threads=2, ids=None, shuffle=True, epochs=None):
    example = {}
    if ids is None:
        ids = table.ids

    with tf.device('/cpu:0'), tf.name_scope('examples'):
        example['id'] = tf.train.string_input_producer(
            tf.convert_to_tensor(ids), num_epochs=epochs, capacity=64).dequeue(name='next_id')
        image_shape, label_shape = [x.shape for x in table.load(ids[0])]

        def load(example_id):
            image, label = table.load(example_id.decode())
            return example_id, image, label

        example['id'], example['image'], example['label'] = tf.py_func(
            load, inp=[example['id']], Tout=[tf.string, tf.float32, tf.float32], name='load_example')
        example['id'].set_shape([])
        example['image'].set_shape(image_shape)
        example['label'].set_shape(label_shape)

    capacity = 4 * batch_size
    if shuffle:
        batches = tf.train.shuffle_batch(example, batch_size=batch_size, num_threads=threads,
                                         capacity=capacity, min_after_dequeue=2 * batch_size)
    else:
        batches = tf.train.batch(example, batch_size=batch_size, num_threads=threads, capacity=capacity)
    return example, batches


def example_batches(count, batch_size, shuffle=True, epochs=None):
    _, batches = id_example_ops(IdTable(count), batch_size, shuffle=shuffle, epochs=epochs)
    return batches


def labelled_paths(paths, batch_size):
    # One pass over the paths, in order.
    path_queue = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
    path = path_queue.dequeue()
    size = tf.py_func(lambda p: np.int64(len(p)), [path], tf.int64)
    size.set_shape([])
    return tf.train.batch([path, size], batch_size=batch_size, allow_smaller_final_batch=True)


def id_batches(ids, batch_size, epochs=1):
    ids_queue = tf.train.string_input_producer(ids, num_epochs=epochs, shuffle=False)
    next_id = ids_queue.dequeue()
    return tf.train.batch([next_id], batch_size, allow_smaller_final_batch=True)


def looked_at_ops(table, batch_size):
    record = {}
    record['id'] = tf.train.string_input_producer(table.ids).dequeue()
    record['bucket'] = tf.string_to_hash_bucket_fast(record['id'], 10)
    batches = tf.train.batch(record, batch_size=batch_size)
    return record, batches


def peeked_batches(table, batch_size):
    # The records are used here: a caller the migration cannot serve.
    record, batches = looked_at_ops(table, batch_size)
    tf.summary.text('first_id', record['id'])
    return batches
