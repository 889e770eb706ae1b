"""Records returned by a reading method of the same class and batched by its caller: the method
is migrated to take the record (its reader goes, its docstring says so), the caller's queue
becomes the dataset and the call moves into the map function, where `self` is the same object.
A class whose reading method another method also hands a queue, without batching, keeps that
method for it; its batching pipeline calls a migrated copy of the method, defined beside it."""
import tensorflow as tf


class ExampleSource(object):
    def __init__(self, files, width):
        self.files = files
        self.width = width

    def _parse(self, filename_queue):
        """One example of the files.

        Args:
          filename_queue: the queue of TFRecord file names.
        """
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'][:self.width], features['id']

    def batches(self, batch_size):
        filename_queue = tf.train.string_input_producer(self.files, num_epochs=2, shuffle=False)
        x, example_id = self._parse(filename_queue)
        self.x_batch, self.id_batch = tf.train.batch([x * 3.0, example_id], batch_size=batch_size,
                                                     num_threads=2)


def source_inputs(files, batch_size):
    source = ExampleSource(files, 2)
    source.batches(batch_size)
    return source.x_batch, source.id_batch


class PreviewedSource(object):
    def __init__(self, files):
        self.files = files

    def _parse(self, filename_queue):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']

    def batches(self, batch_size):
        queue = tf.train.string_input_producer(self.files)
        example_id = self._parse(queue)
        return tf.train.batch([example_id], batch_size)

    def preview(self):
        queue = tf.train.string_input_producer(self.files, num_epochs=1)
        return self._parse(queue)
