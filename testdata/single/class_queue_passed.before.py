"""A queue made in one method and handed to another of the same class, which reads it (through a
reading method, or with a reader of its own) and batches: the producer moves into the method that
reads (it takes what the producer was made from), and the chain there is migrated. A queue whose
method is called twice stays, with the reason."""
import tensorflow as tf


class RecordBatches(object):
    def __init__(self, files, batch_size):
        self.batch_size = batch_size
        # File names in order, two passes.
        filename_queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
        self.ids, self.xs = self._batches(filename_queue)

    def _decode(self, filename_queue):
        class Example(object):
            pass

        reader = tf.TFRecordReader()
        key, serialized = reader.read(filename_queue)
        example = Example()
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        example.id = features['id']
        example.x = features['x'] * 2.0
        return example

    def _batches(self, filename_queue):
        """Batches of the examples.

        Args:
          filename_queue: the file names to read.
        """
        example = self._decode(filename_queue)
        threads = 2
        return tf.train.batch([example.id, example.x], batch_size=self.batch_size, num_threads=threads)


def record_inputs(files, batch_size):
    batches = RecordBatches(files, batch_size)
    return batches.ids, batches.xs


class OwnReader(object):
    def build(self, files, batch_size):
        queue = tf.train.string_input_producer(files, num_epochs=1)
        self.batch_size = batch_size
        self.ids = self.read_ids(queue)
        return self.ids

    def read_ids(self, queue):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(queue)
        example_id = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']
        return tf.train.shuffle_batch([example_id], self.batch_size, capacity=50, min_after_dequeue=10)


def own_reader_inputs(files, batch_size):
    return OwnReader().build(files, batch_size)


class TwoCallers(object):
    def train(self, files):
        queue = tf.train.string_input_producer(files)
        return self._read(queue)

    def test(self, files):
        return self._read(tf.train.string_input_producer(files, num_epochs=1))

    def _read(self, queue):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(queue)
        return tf.train.batch([serialized], 4)
