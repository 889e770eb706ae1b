"""A slim dataset module that reads text lines: not TFRecords."""
import tensorflow as tf

slim = tf.contrib.slim


def make_split(data_dir, split_name):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'line': tf.FixedLenFeature((), tf.string)}, {'line': slim.tfexample_decoder.Tensor('line')})
    return slim.dataset.Dataset(data_dir + '/' + split_name + '-*.txt', tf.TextLineReader, decoder, 10, {})
