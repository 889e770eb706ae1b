"""Records kept by a condition computed from each record (maybe_batch, maybe_shuffle_batch)."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def even_ids(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    example = tf.parse_single_example(serialized, FEATURES)
    keep = tf.equal(example['id'] % 2, 0)
    return tf.train.maybe_batch(example, keep, batch_size, allow_smaller_final_batch=True)


def shuffled_small_ids(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=2)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    example = tf.parse_single_example(serialized, FEATURES)
    return tf.train.maybe_shuffle_batch([example['x'], example['id']], batch_size, capacity=60,
                                        min_after_dequeue=10, keep_input=example['id'] < 30,
                                        allow_smaller_final_batch=True)
