"""Pairs: two values and an id per example, scaled to [-1, 1]."""
import tensorflow as tf

from ..processing import build_batch, scale


class Pairs:
    """TFRecord files of pairs of values."""

    def __init__(self, files, num_epochs, add_input_to_label=False):
        self._files = files
        self._num_epochs = num_epochs
        self._add_input_to_label = add_input_to_label

    def _read(self, filename_queue):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        parsed = tf.parse_single_example(serialized, features={
            'v': tf.FixedLenFeature([2], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return {'values': parsed['v'], 'label': parsed['id']}

    def inputs(self, split, batch_size, augmentation_fn=None):
        filename_queue = tf.train.string_input_producer(self._files, num_epochs=self._num_epochs)
        read_input = self._read(filename_queue)
        if augmentation_fn:
            read_input['values'] = augmentation_fn(read_input['values'])
        values = scale(read_input['values'])
        label = read_input['label']
        if self._add_input_to_label:
            label = [label, values]
        return build_batch(
            values,
            label,
            10,
            batch_size,
            shuffle=split == 'train')
