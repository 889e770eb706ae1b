"""Batches of a feature dict (as Estimator-era code liked), several threads, partial final batch."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def dict_inputs(files, batch_size, threads=4):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, example = reader.read(filename_queue)
    parsed = tf.parse_single_example(example, _FEATURES)
    scaled = parsed['x'] * 2.0
    return tf.train.batch(
        {'x': scaled, 'id': parsed['id']},
        batch_size=batch_size,
        num_threads=threads,
        allow_smaller_final_batch=True)
