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
        self.files = files
        self.batch_size, self.num_epochs = batch_size, num_epochs

    def build_batch(self):
        def parse_record(serialized):
            features = tf.parse_single_example(serialized, features={
                'x': tf.FixedLenFeature([3], tf.float32),
                'id': tf.FixedLenFeature([], tf.int64)})
            x = features['x'] * 2.0
            return x, features['id']

        dataset = tf.data.Dataset.from_tensor_slices(self.files)
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record, num_parallel_calls=2)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, self.num_epochs))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
        dataset = dataset.prefetch(1)
        self.xs, self.ids = dataset.make_one_shot_iterator().get_next()
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

    def read_example(self, serialized):
        with tf.name_scope(None, 'read_example', [serialized]):
            return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']

    def batch(self):
        def parse_record_2(serialized):
            example_id = self.read_example(serialized)
            return example_id

        dataset_2 = tf.data.Dataset.from_tensor_slices(self.files)
        dataset_2 = dataset_2.shuffle(tf.size(self.files, out_type=tf.int64))
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.map(parse_record_2)
        dataset_2 = dataset_2.repeat()
        dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(4))
        dataset_2 = dataset_2.prefetch(1)
        return dataset_2.make_one_shot_iterator().get_next()


def method_batches(files):
    return MethodReader(files).batch()
