"""The same layout, testing the reader class with `if not reader:`."""
import tensorflow as tf

slim = tf.contrib.slim


def get_split(split_name, data_dir, file_pattern=None, reader=None):
    if not reader:
        reader = tf.TFRecordReader
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'image/encoded': tf.FixedLenFeature((), tf.string),
         'image/format': tf.FixedLenFeature((), tf.string),
         'image/id': tf.FixedLenFeature([], tf.int64)},
        {'picture': slim.tfexample_decoder.Image(shape=[8, 8, 3], channels=3),
         'key': slim.tfexample_decoder.Tensor('image/id')})
    pattern = file_pattern or '%s/%s-*.tfrecord' % (data_dir, split_name)
    return slim.dataset.Dataset(pattern, reader, decoder, 30, {})
