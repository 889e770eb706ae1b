"""A slim dataset module whose item handlers are a module constant."""
import tensorflow as tf

slim = tf.contrib.slim

FEATURES = {
    'image/encoded': tf.FixedLenFeature((), tf.string),
    'image/format': tf.FixedLenFeature((), tf.string),
    'image/id': tf.FixedLenFeature([], tf.int64),
}

HANDLERS = {
    'picture': slim.tfexample_decoder.Image(shape=[8, 8, 3], channels=3),
    'key': slim.tfexample_decoder.Tensor('image/id'),
}


def make_split(data_dir, split_name):
    with tf.name_scope('shapes_split'):
        decoder = slim.tfexample_decoder.TFExampleDecoder(FEATURES, HANDLERS)
        split = slim.dataset.Dataset('%s/%s-*.tfrecord' % (data_dir, split_name), tf.TFRecordReader, decoder,
                                     30, {})
    return split
