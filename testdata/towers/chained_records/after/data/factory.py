"""Finds a split's files and prepares its examples for training."""
import glob
import os

import tensorflow as tf

from data import records


def _augment(x, training):
    if training:
        return tf.reverse(x, axis=[0])
    return x


def get_examples(data_dir, split, training=False):
    files = sorted(glob.glob(os.path.join(data_dir, split + '_*.tfrecords')))
    dataset = records.read_dataset(files)

    def prepare_record(x, example_id):
        x = _augment(x, training)
        # scaled once more, as the model expects
        x = x * 2.0
        return x, example_id

    return dataset.map(prepare_record)
