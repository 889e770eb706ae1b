"""GZIP-compressed TFRecord files; the options class imported from its private module."""
import tensorflow as tf

FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def compressed_inputs(files, batch_size):
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, FEATURES)
        return features

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(lambda filename: tf.data.TFRecordDataset(filename, compression_type="GZIP"))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(2)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()
