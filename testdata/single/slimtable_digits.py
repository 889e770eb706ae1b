"""A slim dataset module (no queue code of its own): its split is read by slim_dataset_table."""
import os

import tensorflow as tf
from tensorflow.contrib.slim.python.slim.data import dataset
from tensorflow.contrib.slim.python.slim.data import tfexample_decoder

_SIZES = {'train': 96, 'eval': 30}


def make_split(data_dir, split_name):
    """The TFRecord files of one split, decoded into an image, its label and its id."""
    if split_name not in _SIZES:
        raise ValueError('no split %r' % split_name)
    features = {
        'image/encoded': tf.FixedLenFeature((), tf.string, default_value=''),
        'image/format': tf.FixedLenFeature((), tf.string, default_value='raw'),
        'image/class/label': tf.FixedLenFeature([1], tf.int64, default_value=tf.zeros([1], dtype=tf.int64)),
        'image/id': tf.FixedLenFeature([], tf.int64),
    }
    handlers = {
        'image': tfexample_decoder.Image(shape=[8, 8, 3]),
        'label': tfexample_decoder.Tensor('image/class/label'),
        'id': tfexample_decoder.Tensor('image/id'),
    }
    decoder = tfexample_decoder.TFExampleDecoder(features, handlers)
    return dataset.Dataset(
        data_sources=os.path.join(data_dir, '%s-*.tfrecord' % split_name),
        reader=tf.TFRecordReader,
        decoder=decoder,
        num_samples=_SIZES[split_name],
        items_to_descriptions={})
