"""Per-record checks under a control dependency (asserts guard what is batched), shuffled batches."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def guarded_inputs(files, batch_size, max_id=1000):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, example = reader.read(filename_queue)
    parsed = tf.parse_single_example(example, _FEATURES)
    x = parsed['x']
    in_range = tf.assert_less(parsed['id'], tf.constant(max_id, tf.int64), message='example id out of range')
    finite = tf.assert_equal(tf.reduce_all(tf.is_finite(x)), True)
    with tf.control_dependencies([in_range, finite]):
        x = tf.identity(x)
        example_id = tf.identity(parsed['id'])
    return tf.train.shuffle_batch([x, example_id], batch_size=batch_size, capacity=40, min_after_dequeue=10,
                                  allow_smaller_final_batch=True)
