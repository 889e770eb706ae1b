"""A reader class in the shape of a two-domain GAN's input: each object makes its reader in
__init__, and feed() reads it through a file queue of its own, beside a local reader that is
never read. Two objects are made and each is fed once, so no two calls share a reader: each
feed() becomes a dataset, and the unread local reader goes with the queue. A second class whose
batches are taken twice from one object is left as it is, with the reason (the two calls shared
one reader's records)."""
import tensorflow as tf


class DomainReader(object):
    """Batches of (x, id) from the TFRecord files of one domain."""

    def __init__(self, files, batch_size, num_epochs, name=''):
        self.files = files
        self.batch_size, self.num_epochs = batch_size, num_epochs
        self.name = name

    def feed(self):
        with tf.name_scope(self.name):
            def parse_record(serialized):
                features = tf.parse_single_example(serialized, features={
                    'x': tf.FixedLenFeature([3], tf.float32),
                    'id': tf.FixedLenFeature([], tf.int64)})
                x = features['x'] + 1.0
                return x, features['id']

            dataset = tf.data.Dataset.from_tensor_slices(self.files)
            dataset = dataset.flat_map(tf.data.TFRecordDataset)
            dataset = dataset.map(parse_record)
            dataset = dataset.repeat(self.num_epochs)
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
            dataset = dataset.prefetch(1)
            xs, ids = dataset.make_one_shot_iterator().get_next()
        return xs, ids


def two_domains(files, batch_size):
    a_reader = DomainReader(files[:1], batch_size, num_epochs=2, name='A')
    b_reader = DomainReader(files[1:], batch_size, num_epochs=2, name='B')
    a_x, a_id = a_reader.feed()
    b_x, b_id = b_reader.feed()
    return a_x, a_id, b_x, b_id


class SharedReader(object):
    def __init__(self, files):
        self.files = files
        self.reader = tf.TFRecordReader()

    def next_batch(self):
        queue = tf.train.string_input_producer(self.files)
        _, serialized = self.reader.read(queue)
        return tf.train.batch([serialized], 4)


def interleaved(files):
    source = SharedReader(files)
    return source.next_batch(), source.next_batch()
