"""Reads whose records no queue batches: an input_fn returning the chunks read_up_to gives, a
function returning one parsed example per step, and a method keeping a whole file's name and size
on its object. Each read becomes a dataset's next element where the read was; the code after it
stays where it is (it ran in the step that ran the read, not in a queue's thread)."""
import tensorflow as tf


def make_chunk_input_fn(files, chunk_size, num_epochs=None):
    def input_fn():
        # Up to chunk_size records per step, never two files' records in one chunk.
        dataset = tf.data.Dataset.from_tensor_slices(files)
        dataset = dataset.flat_map(lambda filename: tf.data.TFRecordDataset(filename).batch(chunk_size))
        dataset = dataset.repeat(num_epochs)
        serialized = dataset.make_one_shot_iterator().get_next()
        features = tf.parse_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        label = features.pop('id')
        return features, label
    return input_fn


def one_example(files, num_epochs):
    # One example per step, files in a new order each epoch.
    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64), seed=3)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.repeat(num_epochs)
    record = dataset_2.make_one_shot_iterator().get_next()
    example = tf.parse_single_example(record, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    if example is None:
        return None
    return tf.expand_dims(example['x'], 0), tf.expand_dims(example['id'], 0)


class ImageSource(object):
    def build(self, pattern_files):
        dataset_3 = tf.data.Dataset.from_tensor_slices(pattern_files)
        dataset_3 = dataset_3.map(lambda filename: (filename, tf.read_file(filename)))
        dataset_3 = dataset_3.repeat(1)
        name, contents = dataset_3.make_one_shot_iterator().get_next()
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
        training = self.is_training
        dataset_4 = tf.data.Dataset.from_tensor_slices([self.path])
        if training:
            dataset_4 = dataset_4.shuffle(tf.size([self.path], out_type=tf.int64))
        dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
        dataset_4 = dataset_4.repeat(None if training else 1)
        serialized = dataset_4.make_one_shot_iterator().get_next()
        return tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})


def evaluation_examples(path):
    example = RecordSet(path, is_training=False).get_example()
    return tf.expand_dims(example['id'], 0), tf.expand_dims(example['x'], 0)
