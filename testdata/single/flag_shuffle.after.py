"""A shuffle flag passed down from the caller, and two shapes still left alone with their reason:
a batch in each arm of an if/else, and a record tensor read in a with-header."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def flagged_inputs(files, batch_size, shuffle=True):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return parsed['x'], parsed['id']

    # The producer tests `shuffle` itself, in Python: the migrated code tests it the same way.
    dataset = tf.data.Dataset.from_tensor_slices(files)
    if shuffle:
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def branch_inputs(files, batch_size, shuffle):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=shuffle)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    if shuffle:
        ids = tf.train.shuffle_batch([parsed['id']], batch_size, capacity=50, min_after_dequeue=10)
    else:
        ids = tf.train.batch([parsed['id']], batch_size)
    return ids


def checked_inputs(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    positive = tf.assert_non_negative(parsed['id'])
    with tf.control_dependencies([positive]):
        ids = tf.identity(parsed['id'])
    return tf.train.batch([ids], batch_size)
