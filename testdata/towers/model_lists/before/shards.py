"""Input: one batch per set, each from its own batching of the shared record stream."""
import tensorflow as tf


def batches_per_set(files, batch_size, num_sets):
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, {
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    x_lists, id_lists = [], []
    for i in range(num_sets):
        x = features['x'] * 2.0
        xs, ids = tf.train.shuffle_batch([x, features['id']], batch_size=batch_size, capacity=60,
                                         min_after_dequeue=20)
        x_lists.append(xs)
        id_lists.append(ids)
    return x_lists, id_lists
