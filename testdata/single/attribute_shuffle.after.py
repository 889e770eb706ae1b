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
        epochs = self.epochs if self.training else 1
        dataset = tf.data.Dataset.from_tensor_slices(self.paths)
        if self.training:
            dataset = dataset.shuffle(tf.size(self.paths, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.repeat(epochs)
        serialized = dataset.make_one_shot_iterator().get_next()
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
        def parse_record(serialized):
            example = tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})
            return example['id']

        # Batched in the same block: the test moves to the batch, the parsing into the map function.
        dataset_2 = tf.data.Dataset.from_tensor_slices(self.paths)
        if self.training:
            dataset_2 = dataset_2.shuffle(tf.size(self.paths, out_type=tf.int64))
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.map(parse_record)
        dataset_2 = dataset_2.repeat(self.epochs)
        dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_2 = dataset_2.prefetch(1)
        return dataset_2.make_one_shot_iterator().get_next()

    def note_reading(self):
        self.training = False


def file_examples(paths, training, epochs=None):
    example = ExampleFile(paths, training=training, epochs=epochs).example()
    return tf.expand_dims(example['id'], 0), tf.expand_dims(example['x'], 0)


def id_batches(paths, training, epochs, batch_size):
    return ExampleFile(paths, training=training, epochs=epochs).batches(batch_size)
