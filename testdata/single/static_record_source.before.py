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
    def read_features(tfrecords_paths, num_epochs):
        """Parsed features of one record.

        :param tfrecords_paths: the record files
        :param num_epochs: how often to read them
        """
        assert all(ops.exists(path) for path in tfrecords_paths)

        filename_queue = tf.train.string_input_producer(tfrecords_paths, num_epochs=num_epochs)
        reader = tf.TFRecordReader()
        _, serialized_example = reader.read(filename_queue)
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
    values, example_ids = decoder.read_features(dataset_dir_files, num_epochs=epochs)
    values_batch, ids_batch = tf.train.shuffle_batch(
        tensors=[values, example_ids], batch_size=batch_size, capacity=100 + 2 * batch_size,
        min_after_dequeue=10, num_threads=1)
    return tf.identity(values_batch), ids_batch
