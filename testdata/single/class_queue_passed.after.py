"""A queue made in one method and handed to another of the same class, which reads it (through a
reading method, or with a reader of its own) and batches: the producer moves into the method that
reads (it takes what the producer was made from), and the chain there is migrated. A queue whose
method is called twice stays, with the reason."""
import tensorflow as tf


class RecordBatches(object):
    def __init__(self, files, batch_size):
        self.batch_size = batch_size
        # File names in order, two passes.
        self.ids, self.xs = self._batches(files)

    def _decode(self, serialized):
        class Example(object):
            pass

        example = Example()
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        example.id = features['id']
        example.x = features['x'] * 2.0
        return example

    def _batches(self, filenames):
        """Batches of the examples.

        Args:
          filenames: what the queue `filename_queue` was made from.
        """
        def parse_record(serialized):
            example = self._decode(serialized)
            return example.id, example.x

        threads = 2

        dataset = tf.data.Dataset.from_tensor_slices(filenames)
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record, num_parallel_calls=threads)
        dataset = dataset.repeat(2)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
        dataset = dataset.prefetch(1)
        return list(dataset.make_one_shot_iterator().get_next())


def record_inputs(files, batch_size):
    batches = RecordBatches(files, batch_size)
    return batches.ids, batches.xs


class OwnReader(object):
    def build(self, files, batch_size):
        self.batch_size = batch_size
        self.ids = self.read_ids(files)
        return self.ids

    def read_ids(self, filenames):
        def parse_record_2(serialized):
            example_id = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']
            return example_id

        dataset_2 = tf.data.Dataset.from_tensor_slices(filenames)
        dataset_2 = dataset_2.shuffle(tf.size(filenames, out_type=tf.int64))
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.map(parse_record_2)
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
        dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
        dataset_2 = dataset_2.prefetch(1)
        return dataset_2.make_one_shot_iterator().get_next()


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
