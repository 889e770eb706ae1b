"""Batches of photos for training: several readers, a shuffling pool of serialized examples,
and several threads decoding them."""
import tensorflow as tf

from photos import photo_sets

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def _decode(serialized, scale):
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return parsed['x'] * scale, parsed['id']


def photo_inputs(batch_size, scale=1.0, num_readers=2, num_preprocess_threads=4, data_dir='/tmp/photos'):
    """Batches of (features, ids) from the training subset, mixed across files."""
    photos = photo_sets.PhotoSet('train', data_dir)
    with tf.name_scope('photo_batches'):
        data_files = photos.data_files()
        if not data_files:
            raise IOError('no photo files in %s' % data_dir)

        min_queue_examples = 30
        def parse_record(value):
            example_serialized = value
            features, example_id = _decode(example_serialized, scale)
            features.set_shape([3])
            return features, example_id

        dataset = tf.data.Dataset.from_tensor_slices(data_files)
        dataset = dataset.shuffle(tf.size(data_files, out_type=tf.int64))
        dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=num_readers)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size))
        dataset = dataset.map(parse_record, num_parallel_calls=num_preprocess_threads)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        features, ids = dataset.make_one_shot_iterator().get_next()
        return tf.reshape(features, [batch_size, 3]), tf.reshape(ids, [batch_size])
