"""Points: three features and an id per example."""
import tensorflow as tf

from ..processing import build_batch


class Points:
    """TFRecord files of points; the label may carry the input too."""

    def __init__(self, files, num_epochs, add_input_to_label=False):
        self._files = files
        self._num_epochs = num_epochs
        self._add_input_to_label = add_input_to_label

    def _read(self, filename_queue):
        """One example of the files: its features and label."""
        result = {'features': None, 'label': None}
        reader = tf.TFRecordReader()
        _, value = reader.read(filename_queue)
        parsed = tf.parse_single_example(value, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        result['features'] = parsed['x'] * 2.0
        result['label'] = tf.cast(parsed['id'], tf.int32)
        return result

    def inputs(self, split, batch_size):
        """Batches of (features, label), or (features, label, features) when the label carries the input."""
        with tf.variable_scope("{}_input".format(split)):
            filename_queue = tf.train.string_input_producer(self._files, num_epochs=self._num_epochs)
            read_input = self._read(filename_queue)

            min_queue_examples = int(50 * 0.4)
            return build_batch(
                read_input['features'],
                read_input['label'] if not self._add_input_to_label else
                [read_input['label'], read_input['features']],
                min_queue_examples,
                batch_size,
                shuffle=split == 'train')
