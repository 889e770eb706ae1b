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

    def _parse(self, serialized):
        """One example of the files.

        Args:
          serialized: one record read from the files, a scalar string Tensor.
        """
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'][:self.width], features['id']

    def batches(self, batch_size):
        def parse_record(serialized):
            x, example_id = self._parse(serialized)
            return x * 3.0, example_id

        dataset = tf.data.Dataset.from_tensor_slices(self.files)
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record, num_parallel_calls=2)
        dataset = dataset.repeat(2)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        self.x_batch, self.id_batch = dataset.make_one_shot_iterator().get_next()


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

    def _parse_from_record(self, serialized):
        return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']

    def batches(self, batch_size):
        def parse_record_2(serialized):
            example_id = self._parse_from_record(serialized)
            return example_id

        dataset_2 = tf.data.Dataset.from_tensor_slices(self.files)
        dataset_2 = dataset_2.shuffle(tf.size(self.files, out_type=tf.int64))
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.map(parse_record_2)
        dataset_2 = dataset_2.repeat()
        dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_2 = dataset_2.prefetch(1)
        return dataset_2.make_one_shot_iterator().get_next()

    def preview(self):
        queue = tf.train.string_input_producer(self.files, num_epochs=1)
        return self._parse(queue)
