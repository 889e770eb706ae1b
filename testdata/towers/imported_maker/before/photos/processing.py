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
        filename_queue = tf.train.string_input_producer(data_files, shuffle=True, capacity=16)

        min_queue_examples = 30
        examples_queue = tf.RandomShuffleQueue(
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples,
            dtypes=[tf.string])

        # Each reader takes whole files from the file queue.
        enqueue_ops = []
        for _ in range(num_readers):
            reader = photos.reader()
            _, value = reader.read(filename_queue)
            enqueue_ops.append(examples_queue.enqueue([value]))

        tf.train.queue_runner.add_queue_runner(
            tf.train.queue_runner.QueueRunner(examples_queue, enqueue_ops))
        example_serialized = examples_queue.dequeue()

        features_and_ids = []
        for _ in range(num_preprocess_threads):
            features, example_id = _decode(example_serialized, scale)
            features.set_shape([3])
            features_and_ids.append([features, example_id])

        features, ids = tf.train.batch_join(
            features_and_ids,
            batch_size=batch_size,
            capacity=2 * num_preprocess_threads * batch_size)
        return tf.reshape(features, [batch_size, 3]), tf.reshape(ids, [batch_size])
