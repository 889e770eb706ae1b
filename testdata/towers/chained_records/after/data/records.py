"""Reads the examples of TFRecord files, one at a time."""
import tensorflow as tf
import tensorflow.contrib.slim as slim


def read_dataset(files, num_epochs=2):
    if not isinstance(files, list):
        files = [files]
    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.repeat(num_epochs)

    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        # the id travels with the example
        example_id = parsed['id']
        x = parsed['x'] * 0.5
        return x, example_id

    return dataset.map(parse_record)


def read(files, num_epochs=2):
    return read_dataset(files, num_epochs).make_one_shot_iterator().get_next()


def get_split(files, reader=None):
    """The files as a slim Dataset (no code of this program reads it so)."""
    if reader is None:
        reader = tf.TFRecordReader
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'id': tf.FixedLenFeature([], tf.int64)}, {'id': slim.tfexample_decoder.Tensor('id')})
    return slim.dataset.Dataset(data_sources=files, reader=reader, decoder=decoder, num_samples=50,
                                items_to_descriptions={'id': 'the example id'})
