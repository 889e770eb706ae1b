"""A static method that checks its argument, makes its own producer and reader and returns what it
parsed from one record, called on an object reached through a property (`FeatureIO().reader`,
the property returning an attribute bound once in `__init__`). Migrated, the static method takes
the record (its check stays and runs when the map function is traced), its producer and reader
become the caller's dataset, and the call moves into the map function."""
import os.path as ops

import tensorflow as tf


class FeatureReader(object):
    """Reads the features back."""

    def __init__(self):
        self.kind = 'tfrecord'

    @staticmethod
    def read_features(serialized_example, tfrecords_paths):
        """Parsed features of one record.

        :param tfrecords_paths: the record files
        :param num_epochs: how often to read them
        """
        assert all(ops.exists(path) for path in tfrecords_paths)
        features = tf.parse_single_example(serialized_example, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        values = tf.cast(features['x'], tf.float32) * 2.0
        return values, features['id']


class FeatureIO(object):
    """Holds one reader of features."""

    def __init__(self):
        self.__reader = FeatureReader()

    @property
    def reader(self):
        """The reader."""
        return self.__reader


def train_inputs(dataset_dir_files, batch_size, epochs):
    decoder = FeatureIO().reader
    def parse_record(serialized_example):
        values, example_ids = decoder.read_features(serialized_example, dataset_dir_files)
        return values, example_ids

    dataset = tf.data.Dataset.from_tensor_slices(dataset_dir_files)
    dataset = dataset.shuffle(tf.size(dataset_dir_files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, epochs))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    values_batch, ids_batch = dataset.make_one_shot_iterator().get_next()
    return tf.identity(values_batch), ids_batch
