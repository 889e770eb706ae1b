"""shuffle_batch spelled by hand: a RandomShuffleQueue filled with parsed records by a QueueRunner of
several threads, dequeued in batches; and a named FIFOQueue of dicts, drained with dequeue_up_to."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def shuffled_batches(files, batch_size, num_threads=2):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x = parsed['x'] * 2.0
        example_id = parsed['id']
        with tf.control_dependencies([tf.assert_equal(tf.shape(x), tf.constant([3], tf.int32))]):
            x = tf.identity(x)
        x.set_shape([3])
        with tf.control_dependencies([tf.assert_equal(tf.shape(example_id), tf.constant([], tf.int32))]):
            example_id = tf.identity(example_id)
        example_id.set_shape([])
        return x, example_id

    # Examples wait here until enough are in to mix them.
    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=num_threads)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(2 * batch_size, 1, seed=11))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    xs, ids = dataset.make_one_shot_iterator().get_next()
    return xs, ids


def named_batches(files, batch_size):
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'], parsed['id']
        with tf.control_dependencies([tf.assert_equal(tf.shape(example_id), tf.constant([], tf.int32))]):
            example_id = tf.identity(example_id)
        example_id.set_shape([])
        with tf.control_dependencies([tf.assert_equal(tf.shape(x), tf.constant([3], tf.int32))]):
            x = tf.identity(x)
        x.set_shape([3])
        return {'x': x, 'id': example_id}

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()
