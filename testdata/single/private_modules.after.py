"""A pipeline that reaches the queue APIs through TensorFlow's private modules."""
import tensorflow as tf


def label_stream(files, batch_size):
    def parse_record(raw):
        label = tf.cast(tf.decode_raw(raw, tf.uint8)[0], tf.int64)
        return label

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=1 + 3072, header_bytes=0))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()
