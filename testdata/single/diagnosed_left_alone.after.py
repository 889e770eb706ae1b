"""Left alone and reported: enqueue_many, a used reader key, and a queue consumed elsewhere."""
import tensorflow as tf


def chunks(files):
    queue = tf.train.string_input_producer(files)
    reader = tf.FixedLengthRecordReader(record_bytes=16)
    _, value = reader.read(queue)
    rows = tf.reshape(tf.decode_raw(value, tf.uint8), [4, 4])
    return tf.train.batch([rows], batch_size=8, enqueue_many=True)


def keyed(files):
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    key, value = reader.read(queue)
    return tf.train.batch([key, value], batch_size=8)


def shared_queue(files):
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, value = reader.read(queue)
    size = queue.size()
    batch = tf.train.batch([value], batch_size=8)
    return batch, size
