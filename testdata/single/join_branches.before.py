"""A reader helper that returns a list of one tensor from inside a variable scope, batched by a
name, and joined over several readers; each batched in an if/else by a `shuffle` flag."""
import tensorflow as tf


def read_scaled(filename_queue):
    """One record, scaled; a list of one tensor."""
    with tf.variable_scope('read_scaled'):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
        scaled = parsed['x'] * 2.0
        return [scaled]


def single_batches(files, batch_size, shuffle=False):
    queue = tf.train.string_input_producer(files, shuffle=shuffle, num_epochs=1)
    point = read_scaled(queue)
    if shuffle:
        batch = tf.train.shuffle_batch(point, batch_size, capacity=50, min_after_dequeue=10,
                                       allow_smaller_final_batch=True)
    else:
        batch = tf.train.batch(point, batch_size, allow_smaller_final_batch=True)
    return batch


def joined_batches(files, batch_size, shuffle=False, readers=2):
    queue = tf.train.string_input_producer(files, shuffle=shuffle, num_epochs=1)
    points = [read_scaled(queue) for _ in range(readers)]
    if shuffle:
        batch = tf.train.shuffle_batch_join(points, batch_size, capacity=50, min_after_dequeue=10,
                                            allow_smaller_final_batch=True)
    else:
        batch = tf.train.batch_join(points, batch_size, allow_smaller_final_batch=True)
    return batch


def looped_branches(files, batch_size, shuffle=False, readers=2):
    queue = tf.train.string_input_producer(files, shuffle=shuffle, num_epochs=2)
    records = []
    for _ in range(readers):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(queue)
        parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64),
                                                      'v': tf.FixedLenFeature([2], tf.float32)})
        records.append((parsed['id'], parsed['v']))
    if shuffle:
        ids, values = tf.train.shuffle_batch_join(records, batch_size, capacity=40, min_after_dequeue=5)
    else:
        ids, values = tf.train.batch_join(records, batch_size)
    return ids, values
