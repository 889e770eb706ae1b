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

    def example(self, serialized, scale):
        """One example of the files, scaled.

        Args:
          serialized: one record read from the files, a scalar string Tensor.
          scale: what the features are multiplied by.
        """
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return {'x': features['x'] * scale, 'id': features['id']}

    def batches(self, batch_size):
        def parse_record(serialized):
            example = self.example(serialized, scale=0.5)
            x = example['x'] + 1.0
            return x, example['id']

        dataset = tf.data.Dataset.from_tensor_slices(self.files)
        if self.training:
            dataset = dataset.shuffle(tf.size(self.files, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record, num_parallel_calls=2)
        dataset = dataset.repeat(None if self.training else 2)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        xs, ids = dataset.make_one_shot_iterator().get_next()
        return xs, ids


def example_batches(files, batch_size):
    return ExampleFiles(files).batches(batch_size)


class PreviewedFiles(object):
    def __init__(self, files):
        self.files = files

    def _example(self):
        dataset_2 = tf.data.Dataset.from_tensor_slices(self.files)
        dataset_2 = dataset_2.shuffle(tf.size(self.files, out_type=tf.int64))
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.repeat(1)
        serialized = dataset_2.make_one_shot_iterator().get_next()
        return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']

    def batches(self, batch_size):
        example_id = self._example()
        return tf.train.batch([example_id], batch_size)

    def preview(self):
        return self._example()
