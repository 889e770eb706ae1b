"""Class names looked up in a table by the per-record code: a one-shot iterator's map function
cannot hold the table (TF 1.8 refuses to capture one made outside it, and one made inside it is
never initialized), so the pipeline stays, saying so. So does a reader helper whose code after
the read looks its record up in a table of the module."""
import tensorflow as tf

CLASSES = ['cat', 'dog', 'emu']
NAMES = tf.contrib.lookup.index_to_string_table_from_tensor(tf.constant(CLASSES))


def labelled_inputs(filenames, batch_size):
    table = tf.contrib.lookup.index_table_from_tensor(tf.constant(CLASSES))
    filename_queue = tf.train.string_input_producer(filenames, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        'id': tf.FixedLenFeature([], tf.int64),
        'class': tf.FixedLenFeature([], tf.string)})
    label = table.lookup(features['class'])
    return tf.train.batch([features['id'], label], batch_size=batch_size)


def read_named(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        'id': tf.FixedLenFeature([], tf.int64),
        'label': tf.FixedLenFeature([], tf.int64)})
    return features['id'], NAMES.lookup(features['label'])


def named_inputs(filenames, batch_size):
    filename_queue = tf.train.string_input_producer(filenames, shuffle=False)
    ids, names = read_named(filename_queue)
    return tf.train.batch([ids, names], batch_size=batch_size)
