"""A producer whose `shuffle=` is an attribute of the object (`self.training`), read one record
per step: the dataset built where the read stood shuffles the files under the same test of that
attribute, made when the graph is built as the producer made it; batched, the dataset is built
at the batch. When code between the producer and the read may change the attribute (a method
call), the pipeline stays, with the reason."""
import tensorflow as tf


class ExampleFile(object):
    """Record files read one example per step, shuffled and repeated only when training."""

    def __init__(self, paths, training=True, epochs=None):
        self.training = training
        self.paths = paths
        self.epochs = epochs

    def example(self):
        reader = tf.TFRecordReader()
        epochs = self.epochs if self.training else 1
        files = tf.train.input_producer(
            self.paths,
            num_epochs=epochs,
            shuffle=self.training,
            capacity=4)
        _, serialized = reader.read(files)
        return tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})

    def logged_example(self):
        reader = tf.TFRecordReader()
        files = tf.train.input_producer(self.paths, num_epochs=1, shuffle=self.training)
        self.note_reading()
        _, serialized = reader.read(files)
        return tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})

    def batches(self, batch_size):
        # Batched in the same block: the test moves to the batch, the parsing into the map function.
        files = tf.train.string_input_producer(self.paths, num_epochs=self.epochs, shuffle=self.training)
        _, serialized = tf.TFRecordReader().read(files)
        example = tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})
        return tf.train.batch([example['id']], batch_size=batch_size)

    def note_reading(self):
        self.training = False


def file_examples(paths, training, epochs=None):
    example = ExampleFile(paths, training=training, epochs=epochs).example()
    return tf.expand_dims(example['id'], 0), tf.expand_dims(example['x'], 0)


def id_batches(paths, training, epochs, batch_size):
    return ExampleFile(paths, training=training, epochs=epochs).batches(batch_size)
