"""Reads examples from TFRecord files and hands each one down to the shared batching."""
import tensorflow as tf

from .batching import make_batches


def _parse(serialized):
    parsed = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return parsed['x'], parsed['id']


def train_inputs(files, batch_size, num_epochs=2):
    def parse_record(serialized):
        features, example_id = _parse(serialized)
        features = features * 0.5
        return features, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20, num_epochs))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    features_2, example_id_2 = dataset.make_one_shot_iterator().get_next()
    return make_batches(features_2, example_id_2, batch_size, shuffle=True)


def split_inputs(files, batch_size, split):
    def parse_record_2(serialized):
        features, example_id = _parse(serialized)
        return features, example_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
    if split == 'train':
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
    else:
        dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    features_2, example_id_2 = dataset_2.make_one_shot_iterator().get_next()
    return make_batches(features_2, example_id_2, batch_size, split == 'train', min_queue_examples=10)
