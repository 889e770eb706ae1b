"""Rows read one at a time through a batch of one, then reshaped back (a co-occurrence reader's shape)."""
import tensorflow as tf

ROW_BYTES = 3073


def rows(files, num_epochs=1):
    """Each record as a float row of ROW_BYTES values."""
    def parse_record(value):
        row = tf.reshape(tf.cast(tf.decode_raw(value, tf.uint8), tf.float32), [ROW_BYTES])
        return row

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=ROW_BYTES))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.map(lambda tensor: tf.expand_dims(tensor, 0))
    dataset = dataset.prefetch(1)
    row_batch = dataset.make_one_shot_iterator().get_next()
    return tf.reshape(row_batch, [ROW_BYTES])


def rows_with_labels(files, num_epochs=1):
    """Each record's pixels and label, batched one at a time with two threads."""
    def parse_record_2(value):
        record = tf.decode_raw(value, tf.uint8)
        label = tf.cast(record[0], tf.int32)
        pixels = tf.reshape(record[1:], [3, 32, 32])
        return pixels, label

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=ROW_BYTES))
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
    dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.map(lambda tensor_0, tensor_1: (tf.expand_dims(tensor_0, 0), tf.expand_dims(tensor_1, 0)))
    dataset_2 = dataset_2.prefetch(1)
    pixel_batch, label_batch = dataset_2.make_one_shot_iterator().get_next()
    return pixel_batch, label_batch
