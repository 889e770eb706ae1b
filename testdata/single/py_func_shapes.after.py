"""Records decoded in Python (py_func), their static shapes declared to the batch (shapes=)."""
import os

import numpy as np
import tensorflow as tf


def _decode(record):
    data = np.frombuffer(record, dtype=np.uint8)
    image = data[1:].reshape(3, 32, 32).transpose(1, 2, 0).copy()
    return image, np.int32(data[0])


def py_inputs(data_dir, batch_size):
    files = [os.path.join(data_dir, 'data_batch_%d.bin' % i) for i in range(1, 6)]
    def parse_record(value):
        image, label = tf.py_func(_decode, [value], [tf.uint8, tf.int32])
        with tf.control_dependencies([tf.assert_equal(tf.shape(image), tf.constant([32, 32, 3], tf.int32))]):
            image = tf.identity(image)
        image.set_shape([32, 32, 3])
        with tf.control_dependencies([tf.assert_equal(tf.shape(label), tf.constant([], tf.int32))]):
            label = tf.identity(label)
        label.set_shape([])
        return image, label

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=3073))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
