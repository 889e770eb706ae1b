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
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.FixedLengthRecordReader(record_bytes=3073)
    _, value = reader.read(queue)
    image, label = tf.py_func(_decode, [value], [tf.uint8, tf.int32])
    return tf.train.batch([image, label], batch_size=batch_size, shapes=[[32, 32, 3], []])
