"""A method that makes its own file queue and reader and returns one parsed example (its opening
also names the producer's options: `epochs = ...`, `capacity = ...`), batched by another method
of the class. Migrated, the method takes the record and the parameters its parsing reads; its
producer, reader and the values only they read become the caller's dataset. A class whose other
method also reads single examples through such a method keeps it, reading in place."""
import tensorflow as tf


class ExampleFiles(object):
    def __init__(self, files, training=False):
        self.files = files
        self.training = training

    def example(self, queue_capacity, scale):
        """One example of the files, scaled.

        Args:
          queue_capacity: how many file names the queue holds.
          scale: what the features are multiplied by.
        """
        reader = tf.TFRecordReader()
        epochs = None if self.training else 2
        capacity = queue_capacity
        filename_queue = tf.train.string_input_producer(self.files, num_epochs=epochs,
                                                        shuffle=self.training, capacity=capacity)
        _, serialized = reader.read(filename_queue)
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return {'x': features['x'] * scale, 'id': features['id']}

    def batches(self, batch_size):
        example = self.example(8, scale=0.5)
        x = example['x'] + 1.0
        xs, ids = tf.train.batch([x, example['id']], batch_size=batch_size, num_threads=2)
        return xs, ids


def example_batches(files, batch_size):
    return ExampleFiles(files).batches(batch_size)


class PreviewedFiles(object):
    def __init__(self, files):
        self.files = files

    def _example(self):
        filename_queue = tf.train.string_input_producer(self.files, num_epochs=1)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']

    def batches(self, batch_size):
        example_id = self._example()
        return tf.train.batch([example_id], batch_size)

    def preview(self):
        return self._example()
