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
        pass

    def next_batch(self):
        def parse_record(serialized):
            features = tf.parse_single_example(serialized, features={
                'x': tf.FixedLenFeature([3], tf.float32),
                'id': tf.FixedLenFeature([], tf.int64)})
            return features

        dataset = tf.data.Dataset.from_tensor_slices(self.files)
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record)
        dataset = dataset.repeat(2)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
        dataset = dataset.prefetch(1)
        self.batch = dataset.make_one_shot_iterator().get_next()
        return self.batch


def owner_inputs(files, batch_size):
    owner = QueueOwner(files, batch_size)
    owner.make_queue()
    return owner.next_batch()


class Streams(object):
    """The queue and the reader both made in __init__, the records batched in another method."""

    def __init__(self, files):
        self.files = files

    def batches(self, batch_size):
        def parse_record_2(serialized):
            parsed = tf.parse_single_example(serialized, {
                'id': tf.FixedLenFeature([], tf.int64),
                'v': tf.FixedLenFeature([2], tf.float32)})
            return parsed['id'], parsed['v']

        dataset_2 = tf.data.Dataset.from_tensor_slices(self.files)
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.map(parse_record_2)
        dataset_2 = dataset_2.repeat(1)
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        return list(dataset_2.make_one_shot_iterator().get_next())


def stream_inputs(files, batch_size):
    return Streams(files).batches(batch_size)


class FromParameter(object):
    def __init__(self, files):
        self.queue = tf.train.string_input_producer(files)

    def batches(self):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(self.queue)
        return tf.train.batch([serialized], 8)
