"""File queues kept on the object: made in one method, read in another. The producer's call
moves to where it is read (its arguments are attributes bound once in __init__, so they mean the
same there) and its binding goes; a method left empty keeps a `pass`. A queue made from a value
only __init__ can see is left as it is, with what to change."""
import tensorflow as tf


class QueueOwner(object):
    def __init__(self, files, batch_size):
        self.files = files
        self.batch_size = batch_size

    def make_queue(self):
        # The file names in their order, twice.
        self.filename_queue = tf.train.string_input_producer(self.files, num_epochs=2, shuffle=False)

    def next_batch(self):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(self.filename_queue)
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        self.batch = tf.train.batch(features, batch_size=self.batch_size)
        return self.batch


def owner_inputs(files, batch_size):
    owner = QueueOwner(files, batch_size)
    owner.make_queue()
    return owner.next_batch()


class Streams(object):
    """The queue and the reader both made in __init__, the records batched in another method."""

    def __init__(self, files):
        self.files = files
        self.queue = tf.train.string_input_producer(self.files, shuffle=False, num_epochs=1)
        self.reader = tf.TFRecordReader()

    def batches(self, batch_size):
        _, serialized = self.reader.read(self.queue)
        parsed = tf.parse_single_example(serialized, {
            'id': tf.FixedLenFeature([], tf.int64),
            'v': tf.FixedLenFeature([2], tf.float32)})
        return tf.train.batch([parsed['id'], parsed['v']], batch_size, allow_smaller_final_batch=True)


def stream_inputs(files, batch_size):
    return Streams(files).batches(batch_size)


class FromParameter(object):
    def __init__(self, files):
        self.queue = tf.train.string_input_producer(files)

    def batches(self):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(self.queue)
        return tf.train.batch([serialized], 8)
