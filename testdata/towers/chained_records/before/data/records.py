"""Reads the examples of TFRecord files, one at a time."""
import tensorflow as tf
import tensorflow.contrib.slim as slim


def read(files, num_epochs=2):
    if not isinstance(files, list):
        files = [files]
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    # the id travels with the example
    example_id = parsed['id']
    x = parsed['x'] * 0.5
    return x, example_id


def get_split(files, reader=None):
    """The files as a slim Dataset (no code of this program reads it so)."""
    if reader is None:
        reader = tf.TFRecordReader
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'id': tf.FixedLenFeature([], tf.int64)}, {'id': slim.tfexample_decoder.Tensor('id')})
    return slim.dataset.Dataset(data_sources=files, reader=reader, decoder=decoder, num_samples=50,
                                items_to_descriptions={'id': 'the example id'})
