"""Batches of a feature dict (as Estimator-era code liked), several threads, partial final batch."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def dict_inputs(files, batch_size, threads=4):
    def parse_record(example):
        parsed = tf.parse_single_example(example, _FEATURES)
        scaled = parsed['x'] * 2.0
        return {'x': scaled, 'id': parsed['id']}

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=threads)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()
