"""Batching a name instead of a literal: the slice producer's whole output, or a structure the
per-record code built. tf.train.batch gives back a dict for a dict, a list for a list."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def sliced_rows(pattern_files, batch_size):
    labels = [index % 10 for index in range(len(pattern_files))]
    # One name for all the sliced tensors, handed to the batch as it is.
    row = tf.train.slice_input_producer([pattern_files, labels], num_epochs=1, shuffle=False)
    return tf.train.batch(row, batch_size=batch_size, allow_smaller_final_batch=True)


def sliced_pairs(pattern_files, batch_size):
    labels = tf.constant([index % 10 for index in range(len(pattern_files))], dtype=tf.int64)
    row = tf.train.slice_input_producer([pattern_files, labels], num_epochs=2, seed=5)
    paths, label_batch = tf.train.shuffle_batch(row, batch_size=batch_size, capacity=40, min_after_dequeue=10,
                                                allow_smaller_final_batch=True)
    return paths, label_batch


def named_dict(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    example = {'scaled': parsed['x'] * 2.0, 'id': parsed['id']}
    return tf.train.batch(example, batch_size=batch_size, num_threads=2, allow_smaller_final_batch=True)


def named_list(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    example = [parsed['x'], parsed['id']]
    batch = tf.train.shuffle_batch(example, batch_size=batch_size, capacity=30, min_after_dequeue=5,
                                   allow_smaller_final_batch=True)
    return batch


def named_single(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example = (tf.parse_single_example(serialized, _FEATURES)['id'],)
    return tf.train.batch(example, batch_size=batch_size, allow_smaller_final_batch=True)


def grown_list(files, batch_size):
    """Left alone: the list grows after it is bound, so its length is not the one written."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    example = [parsed['x']]
    example.append(parsed['id'])
    return tf.train.batch(example, batch_size=batch_size, allow_smaller_final_batch=True)
