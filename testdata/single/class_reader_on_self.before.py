"""A feeder class that makes its reader in __init__ and reads it in another method, storing the
batch on the object. The reader, bound once and read once, goes with the file queue; the batch
kept on `self` gets the iterator's next element. A second class binds its reader in two places,
a third hands its queue to a method that also names it in a name scope: both are left as they
are, with the reason."""
import tensorflow as tf


class RecordFeeder(object):
    """Shuffled batches of (x, id) from TFRecord files."""

    def __init__(self, files, batch_size, num_epochs):
        # One reader for every file.
        self.reader = tf.TFRecordReader()
        self.files = files
        self.batch_size, self.num_epochs = batch_size, num_epochs

    def build_batch(self):
        queue = tf.train.string_input_producer(self.files, num_epochs=self.num_epochs, shuffle=False)
        _, serialized = self.reader.read(queue)
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        x = features['x'] * 2.0
        self.xs, self.ids = tf.train.shuffle_batch([x, features['id']], batch_size=self.batch_size,
                                                   capacity=40, min_after_dequeue=10, num_threads=2)
        return self.xs


def feeder_inputs(files, batch_size):
    feeder = RecordFeeder(files, batch_size, num_epochs=2)
    feeder.build_batch()
    return feeder.xs, feeder.ids


class TwiceBound(object):
    def __init__(self, files, compressed):
        self.files = files
        self.reader = tf.TFRecordReader()
        if compressed:
            options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
            self.reader = tf.TFRecordReader(options=options)

    def batch(self):
        queue = tf.train.string_input_producer(self.files)
        _, serialized = self.reader.read(queue)
        return tf.train.batch([serialized], 4)


class MethodReader(object):
    def __init__(self, files):
        self.files = files

    def read_example(self, filename_queue):
        with tf.name_scope(None, 'read_example', [filename_queue]):
            reader = tf.TFRecordReader()
            _, serialized = reader.read(filename_queue)
            return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']

    def batch(self):
        queue = tf.train.string_input_producer(self.files)
        example_id = self.read_example(queue)
        return tf.train.batch([example_id], 4)


def method_batches(files):
    return MethodReader(files).batch()
