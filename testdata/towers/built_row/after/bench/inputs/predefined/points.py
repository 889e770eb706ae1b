"""Points: three features and an id per example."""
import tensorflow as tf

from ..processing import build_batch


class Points:
    """TFRecord files of points; the label may carry the input too."""

    def __init__(self, files, num_epochs, add_input_to_label=False):
        self._files = files
        self._num_epochs = num_epochs
        self._add_input_to_label = add_input_to_label

    def _read(self, value):
        """One example of the files: its features and label."""
        result = {'features': None, 'label': None}
        parsed = tf.parse_single_example(value, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        result['features'] = parsed['x'] * 2.0
        result['label'] = tf.cast(parsed['id'], tf.int32)
        return result

    def inputs(self, split, batch_size):
        """Batches of (features, label), or (features, label, features) when the label carries the input."""
        with tf.variable_scope("{}_input".format(split)):
            def parse_record(value):
                read_input = self._read(value)
                return read_input['features'], ((tuple(read_input['label']) if isinstance(read_input['label'], list) else read_input['label']) if not self._add_input_to_label else (read_input['label'], read_input['features']))

            min_queue_examples = int(50 * 0.4)

            dataset = tf.data.Dataset.from_tensor_slices(self._files)
            dataset = dataset.shuffle(tf.size(self._files, out_type=tf.int64))
            dataset = dataset.flat_map(tf.data.TFRecordDataset)
            dataset = dataset.map(parse_record)
            if split == 'train':
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size, self._num_epochs))
            else:
                dataset = dataset.repeat(self._num_epochs)
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
            dataset = dataset.prefetch(1)
            features, label = dataset.make_one_shot_iterator().get_next()
            return build_batch(
                features,
                list(label) if isinstance(label, tuple) else label,
                min_queue_examples,
                batch_size,
                shuffle=split == 'train')
