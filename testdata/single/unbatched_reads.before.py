"""Reads whose records no queue batches: an input_fn returning the chunks read_up_to gives, a
function returning one parsed example per step, and a method keeping a whole file's name and size
on its object. Each read becomes a dataset's next element where the read was; the code after it
stays where it is (it ran in the step that ran the read, not in a queue's thread)."""
import tensorflow as tf


def make_chunk_input_fn(files, chunk_size, num_epochs=None):
    def input_fn():
        filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
        reader = tf.TFRecordReader()
        # Up to chunk_size records per step, never two files' records in one chunk.
        _, serialized = reader.read_up_to(filename_queue, num_records=chunk_size)
        features = tf.parse_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        label = features.pop('id')
        return features, label
    return input_fn


def one_example(files, num_epochs):
    # One example per step, files in a new order each epoch.
    queue = tf.train.string_input_producer(files, num_epochs=num_epochs, seed=3)
    reader = tf.TFRecordReader()
    _, record = reader.read(queue)
    example = tf.parse_single_example(record, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    if example is None:
        return None
    return tf.expand_dims(example['x'], 0), tf.expand_dims(example['id'], 0)


class ImageSource(object):
    def build(self, pattern_files):
        queue = tf.train.string_input_producer(pattern_files, num_epochs=1, shuffle=False)
        reader = tf.WholeFileReader()
        name, contents = reader.read(queue)
        self.name = tf.reshape(name, [1])
        self.size = tf.reshape(tf.size(tf.string_split([contents], delimiter="")), [1])


def image_sizes(pattern_files):
    source = ImageSource()
    source.build(pattern_files)
    return source.name, source.size


class RecordSet(object):
    """A record file read one example per step, shuffled and repeated only when training."""

    def __init__(self, path, is_training=True):
        self.path = path
        self.is_training = is_training

    def get_example(self):
        reader = tf.TFRecordReader()
        training = self.is_training
        path_queue = tf.train.input_producer([self.path], num_epochs=None if training else 1,
                                             shuffle=training, capacity=8)
        _, serialized = reader.read(path_queue)
        return tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})


def evaluation_examples(path):
    example = RecordSet(path, is_training=False).get_example()
    return tf.expand_dims(example['id'], 0), tf.expand_dims(example['x'], 0)
