"""Example records: a slim description of the split (for slim's readers) and `read`, which reads
the record files itself and returns the tensors of one decoded example."""
import tensorflow as tf

import tensorflow.contrib.slim as slim

_SIZES = {'train': 50}


def describe_split(split_name, pattern, reader=None):
    """The split for slim's DatasetDataProvider (no script of this program uses it)."""
    if reader is None:
        reader = tf.TFRecordReader
    features = {
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64),
    }
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        features, {'x': slim.tfexample_decoder.Tensor('x'), 'id': slim.tfexample_decoder.Tensor('id')})
    return slim.dataset.Dataset(data_sources=pattern, reader=reader, decoder=decoder,
                                num_samples=_SIZES[split_name], items_to_descriptions={})


def read(record_files, epochs=3):
    if not isinstance(record_files, list):
        record_files = [record_files]
    dataset = tf.data.Dataset.from_tensor_slices(record_files)
    dataset = dataset.shuffle(tf.size(record_files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.repeat(epochs)

    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        values = tf.cond(tf.reduce_sum(parsed['x']) > 1e9, lambda: parsed['x'] * 0.0, lambda: parsed['x'])
        return tf.reshape(values, [1, 3]), tf.cast(parsed['id'], tf.int32)

    return dataset.map(parse_record)
