"""The shapes dataset: 28x28 grey images of circles, squares and triangles, one class each."""
import os

import tensorflow as tf

slim = tf.contrib.slim

SPLITS = {'train': 3000, 'validation': 600}
ITEMS = {'image': 'a 28x28 grey image', 'label': 'the shape, 0 to 2'}


def get_split(split_name, dataset_dir, reader=None):
    """The slim Dataset of one split; `reader` defaults to reading TFRecord files."""
    if split_name not in SPLITS:
        raise ValueError('no split %r' % split_name)
    if reader is None:
        reader = tf.TFRecordReader
    features = {
        'image/encoded': tf.FixedLenFeature([], tf.string),
        'image/class/label': tf.FixedLenFeature([], tf.int64),
    }
    handlers = {
        'image': slim.tfexample_decoder.Image(shape=[28, 28, 1], channels=1),
        'label': slim.tfexample_decoder.Tensor('image/class/label'),
    }
    decoder = slim.tfexample_decoder.TFExampleDecoder(features, handlers)
    return slim.dataset.Dataset(
        data_sources=os.path.join(dataset_dir, 'shapes_%s-*.tfrecord' % split_name),
        reader=reader,
        decoder=decoder,
        num_samples=SPLITS[split_name],
        items_to_descriptions=ITEMS)
