"""A slim dataset module in the layout of slim's own: get_split takes a reader class that
defaults to None and fills it in itself (no queue code of its own)."""
import os

import tensorflow as tf

slim = tf.contrib.slim

_SIZES = {'train': 96, 'eval': 30}


def get_split(split_name, data_dir, file_pattern=None, reader=None):
    """The TFRecord files of one split, decoded into an image, its label and its id."""
    if split_name not in _SIZES:
        raise ValueError('no split %r' % split_name)
    if not file_pattern:
        file_pattern = '%s-*.tfrecord'
    # None lets the dataset factory ask for this module's own reader class.
    if reader is None:
        reader = tf.TFRecordReader
    features = {
        'image/encoded': tf.FixedLenFeature((), tf.string, default_value=''),
        'image/format': tf.FixedLenFeature((), tf.string, default_value='raw'),
        'image/class/label': tf.FixedLenFeature([1], tf.int64, default_value=tf.zeros([1], dtype=tf.int64)),
        'image/id': tf.FixedLenFeature([], tf.int64),
    }
    handlers = {
        'image': slim.tfexample_decoder.Image(shape=[8, 8, 3]),
        'label': slim.tfexample_decoder.Tensor('image/class/label'),
        'id': slim.tfexample_decoder.Tensor('image/id'),
    }
    decoder = slim.tfexample_decoder.TFExampleDecoder(features, handlers)
    return slim.dataset.Dataset(
        data_sources=os.path.join(data_dir, file_pattern % split_name),
        reader=reader,
        decoder=decoder,
        num_samples=_SIZES[split_name],
        items_to_descriptions={})
