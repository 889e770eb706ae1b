"""The digit records, reached through a manager object: `DigitIO().reader` is a DigitReader,
whose static read_digits(path, epochs) reads one file with a file queue and a reader of its own
and returns one parsed (image, label). The scripts that batch those records live elsewhere."""
import os

import tensorflow as tf


class DigitCodec(object):
    """What the reader and the writer share."""

    def __init__(self):
        self._pixels = 784

    @property
    def pixels(self):
        return self._pixels

    def label_name(self, label):
        return 'digit %d' % label


class DigitReader(DigitCodec):
    """Reads digit records."""

    def __init__(self):
        super(DigitReader, self).__init__()
        return

    @staticmethod
    def read_digits(path, epochs):
        """One record of the file at `path`, decoded.

        :param path: a TFRecord file of digits
        :param epochs: how many passes over the file (None: no end)
        :return: image (784 floats in [0, 1)), label (int32)
        """
        assert os.path.exists(path)

        file_queue = tf.train.string_input_producer([path], num_epochs=epochs)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(file_queue)

        features = tf.parse_single_example(serialized, features={
            'image_raw': tf.FixedLenFeature([], tf.string),
            'label': tf.FixedLenFeature([], tf.int64),
        })
        image = tf.decode_raw(features['image_raw'], tf.uint8)
        image = tf.reshape(image, [784])
        image = tf.cast(image, tf.float32) / 256.0
        label = tf.cast(features['label'], tf.int32)
        return image, label


class DigitWriter(DigitCodec):
    """Writes digit records."""

    def write(self, path, images, labels):
        with tf.python_io.TFRecordWriter(path) as writer:
            for image, label in zip(images, labels):
                example = tf.train.Example(features=tf.train.Features(feature={
                    'image_raw': tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.tobytes()])),
                    'label': tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)])),
                }))
                writer.write(example.SerializeToString())


class DigitIO(object):
    """Owns one reader and one writer."""

    def __init__(self):
        self.__writer = DigitWriter()
        self.__reader = DigitReader()
        return

    @property
    def writer(self):
        return self.__writer

    @property
    def reader(self):
        return self.__reader
