"""Handwritten digits, one TFRecord file per split."""
import os

import tensorflow as tf
from tensorflow.contrib.slim.python.slim.data import dataset as slim_dataset
from tensorflow.contrib.slim.python.slim.data import tfexample_decoder

SIZES = {'train': 5000, 'test': 1000}


def get_split(split_name, dataset_dir, reader=tf.TFRecordReader):
    decoder = tfexample_decoder.TFExampleDecoder(
        {'pixels': tf.FixedLenFeature([784], tf.float32), 'digit': tf.FixedLenFeature([], tf.int64)},
        {'image': tfexample_decoder.Tensor('pixels'), 'label': tfexample_decoder.Tensor('digit')})
    return slim_dataset.Dataset(
        data_sources=os.path.join(dataset_dir, 'digits_%s.tfrecord' % split_name),
        reader=reader, decoder=decoder, num_samples=SIZES[split_name],
        items_to_descriptions={'image': 'pixels', 'label': 'the digit'})


def get_legacy_split(split_name, dataset_dir):
    """The same split, from files written before the labels were renamed."""
    decoder = tfexample_decoder.TFExampleDecoder(
        {'pixels': tf.FixedLenFeature([784], tf.float32), 'label': tf.FixedLenFeature([], tf.int64)},
        {'image': tfexample_decoder.Tensor('pixels'), 'label': tfexample_decoder.Tensor('label')})
    return slim_dataset.Dataset(
        data_sources=os.path.join(dataset_dir, 'legacy_%s.tfrecord' % split_name),
        reader=tf.TFRecordReader, decoder=decoder, num_samples=SIZES[split_name],
        items_to_descriptions={'image': 'pixels', 'label': 'the digit'})
