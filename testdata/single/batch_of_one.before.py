"""Rows read one at a time through a batch of one, then reshaped back (a co-occurrence reader's shape)."""
import tensorflow as tf

ROW_BYTES = 3073


def rows(files, num_epochs=1):
    """Each record as a float row of ROW_BYTES values."""
    queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
    reader = tf.FixedLengthRecordReader(record_bytes=ROW_BYTES)
    _, value = reader.read(queue)
    row = tf.reshape(tf.cast(tf.decode_raw(value, tf.uint8), tf.float32), [ROW_BYTES])
    row_batch = tf.train.batch([row], batch_size=1)
    return tf.reshape(row_batch, [ROW_BYTES])


def rows_with_labels(files, num_epochs=1):
    """Each record's pixels and label, batched one at a time with two threads."""
    queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
    reader = tf.FixedLengthRecordReader(record_bytes=ROW_BYTES)
    _, value = reader.read(queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(record[0], tf.int32)
    pixels = tf.reshape(record[1:], [3, 32, 32])
    pixel_batch, label_batch = tf.train.batch([pixels, label], batch_size=1, num_threads=2)
    return pixel_batch, label_batch
