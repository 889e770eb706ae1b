"""Records read and parsed in one function and returned as a tuple; the caller hands them to
another function that scales each record and batches them, keeping the final partial batch."""
import tensorflow as tf


def _parsed_records(files, epochs):
    queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    features = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([1], tf.int64),
                                                    'x': tf.FixedLenFeature([3], tf.float32)})
    return features['id'], tf.reshape(features['x'], [3])


def _scaled_batches(records, batch_size, scale):
    example_id, x = records
    x = x * scale
    ids, xs = tf.train.batch([example_id, x], batch_size=batch_size, allow_smaller_final_batch=True)
    return ids, xs


def scaled_batches(files, batch_size, epochs=1, scale=2.0):
    records = _parsed_records(files, epochs)
    ids, xs = _scaled_batches(records, batch_size, scale)
    return [ids, xs]
