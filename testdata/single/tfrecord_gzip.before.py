"""GZIP-compressed TFRecord files; the options class imported from its private module."""
import tensorflow as tf
from tensorflow.python.lib.io.tf_record import TFRecordCompressionType, TFRecordOptions

FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def compressed_inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    reader = tf.TFRecordReader(options=TFRecordOptions(TFRecordCompressionType.GZIP))
    _, serialized = reader.read(queue)
    features = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch(features, batch_size=batch_size)
