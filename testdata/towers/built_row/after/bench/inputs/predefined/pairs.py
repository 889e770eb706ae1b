"""Pairs: two values and an id per example, scaled to [-1, 1]."""
import tensorflow as tf

from ..processing import build_batch, scale


class Pairs:
    """TFRecord files of pairs of values."""

    def __init__(self, files, num_epochs, add_input_to_label=False):
        self._files = files
        self._num_epochs = num_epochs
        self._add_input_to_label = add_input_to_label

    def _read(self, serialized):
        parsed = tf.parse_single_example(serialized, features={
            'v': tf.FixedLenFeature([2], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return {'values': parsed['v'], 'label': parsed['id']}

    def inputs(self, split, batch_size, augmentation_fn=None):
        graph_seed = tf.get_default_graph().seed

        def parse_record(serialized):
            tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
            read_input = self._read(serialized)
            if augmentation_fn:
                read_input['values'] = augmentation_fn(read_input['values'])
            values = scale(read_input['values'])
            label = read_input['label']
            if self._add_input_to_label:
                label = [label, values]
            return values, (tuple(label) if isinstance(label, list) else label)

        dataset = tf.data.Dataset.from_tensor_slices(self._files)
        dataset = dataset.shuffle(tf.size(self._files, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record)
        if split == 'train':
            dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, self._num_epochs))
        else:
            dataset = dataset.repeat(self._num_epochs)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        features, label_2 = dataset.make_one_shot_iterator().get_next()
        return build_batch(
            features,
            list(label_2) if isinstance(label_2, tuple) else label_2,
            10,
            batch_size,
            shuffle=split == 'train')
