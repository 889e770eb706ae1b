"""A module whose own pipeline migrates beside a slim Dataset definition: the reader class handed to
slim stays, reported (slim reads it through queues wherever a provider reads that dataset)."""
import tensorflow as tf

slim = tf.contrib.slim


def get_split(pattern, decoder, size):
    return slim.dataset.Dataset(data_sources=pattern, reader=tf.TFRecordReader, decoder=decoder,
                                num_samples=size, items_to_descriptions={})


def ids(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch([parsed['id']], batch_size)
