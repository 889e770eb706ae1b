"""Left alone and reported: static shapes given to batch by a name, a used text-line reader key
(`file:line`, which no dataset gives), and a queue consumed elsewhere."""
import tensorflow as tf

ROW_SHAPES = [[4, 4]]


def chunks(files):
    queue = tf.train.string_input_producer(files)
    reader = tf.FixedLengthRecordReader(record_bytes=16)
    _, value = reader.read(queue)
    rows = tf.py_func(decode_rows, [value], tf.uint8)
    return tf.train.batch([rows], batch_size=8, shapes=ROW_SHAPES)


def decode_rows(value):
    return value.reshape(4, 4)


def keyed(files):
    queue = tf.train.string_input_producer(files)
    reader = tf.TextLineReader()
    key, value = reader.read(queue)
    return tf.train.batch([key, value], batch_size=8)


def shared_queue(files):
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, value = reader.read(queue)
    size = queue.size()
    batch = tf.train.batch([value], batch_size=8)
    return batch, size
