"""Loops of readers whose reader is made by a function or method that only returns a new
TensorFlow reader: the files are read with that reader class's dataset, and the maker stays for
whoever else calls it. A maker called on an object whose class is not proven stays, with the
reason, here where the module's classes make different readers (when every class of the run
that defines the method makes one reader class, that proves it: tests/test_dispatched_readers.py)."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


class ExampleFiles(object):
    def __init__(self, files):
        self.files = files

    def reader(self):
        """A reader of one serialized example."""
        return tf.TFRecordReader()


class TextFiles(object):
    def reader(self):
        return tf.TextLineReader()


def make_reader():
    return tf.TFRecordReader()


def mixed_batches(files, batch_size, num_readers=2, num_threads=3):
    examples = ExampleFiles(files)
    def parse_record(value):
        serialized = value
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return parsed['x'], parsed['id']

    dataset = tf.data.Dataset.from_tensor_slices(examples.files)
    dataset = dataset.shuffle(tf.size(examples.files, out_type=tf.int64))
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=num_readers)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
    dataset = dataset.map(parse_record, num_parallel_calls=num_threads)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def joined_readers(files, batch_size):
    def parse_record_2(value):
        parsed = tf.parse_single_example(value, _FEATURES)
        return parsed['x'], parsed['id']

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def given_files(examples, batch_size):
    file_queue = tf.train.string_input_producer(examples.files, num_epochs=1)
    rows = []
    for _ in range(2):
        reader = examples.reader()
        _, value = reader.read(file_queue)
        rows.append([tf.parse_single_example(value, _FEATURES)['id']])
    return tf.train.batch_join(rows, batch_size=batch_size)
