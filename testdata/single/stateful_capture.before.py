"""Per-record code that reads a tensor made outside it. A constant is captured by the map
function as it is; a random op (or a variable, a placeholder, a py_func) cannot be captured by a
one-shot iterator (TF 1.x: "does not support datasets that capture stateful objects"), and the
queue ran it once per record: that pipeline stays, with the line to move into the per-record code."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def offset_batches(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(queue)
    offset = tf.constant([1.0, 2.0, 3.0])
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch([parsed['x'] + offset, parsed['id']], batch_size, allow_smaller_final_batch=True)


def jittered_batches(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1)
    _, serialized = tf.TFRecordReader().read(queue)
    jitter = tf.random_uniform([3], maxval=0.01)
    scaled_jitter = jitter * 2.0
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch([parsed['x'] + scaled_jitter, parsed['id']], batch_size, allow_smaller_final_batch=True)
