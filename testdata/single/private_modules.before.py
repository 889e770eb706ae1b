"""A pipeline that reaches the queue APIs through TensorFlow's private modules."""
import tensorflow as tf
from tensorflow.python.ops import io_ops
from tensorflow.python.training import input as tf_input


def label_stream(files, batch_size):
    producer = tf_input.string_input_producer(files, shuffle=False, num_epochs=1)
    reader = io_ops.FixedLengthRecordReader(1 + 3072, header_bytes=0)
    unused_key, raw = reader.read(producer)
    label = tf.cast(tf.decode_raw(raw, tf.uint8)[0], tf.int64)
    return tf_input.batch([label], batch_size, capacity=64)
