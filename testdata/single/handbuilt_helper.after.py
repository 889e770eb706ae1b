"""Hand-built queues in helper functions: the caller reads and parses records, a helper passes the
tensors it is given through a queue filled by queue runners and gives back what it dequeues."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def mixed_batches(files, batch_size, reader_threads=2):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        tensors = [parsed['x'] * 2.0, parsed['id']]
        tensors = list(tensors)
        return tuple(tensors)

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=reader_threads)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(4 * batch_size or 8 * batch_size, 1))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def padded_batches(files, batch_size):
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        # Records of 1 to 3 values, padded in each batch to the longest.
        values = parsed['x'][:1 + parsed['id'] % 3]
        values, example_id = values, parsed['id']
        values.set_shape([None])
        example_id.set_shape([])
        return values, example_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.padded_batch(batch_size, dataset_2.output_shapes)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def helper_batches(files, batch_size):
    def parse_record_3(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'], parsed['id']
        with tf.control_dependencies([tf.assert_equal(tf.shape(x), tf.constant([3], tf.int32))]):
            x = tf.identity(x)
        x.set_shape([3])
        with tf.control_dependencies([tf.assert_equal(tf.shape(example_id), tf.constant([], tf.int32))]):
            example_id = tf.identity(example_id)
        example_id.set_shape([])
        return x, example_id

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.shuffle(tf.size(files, out_type=tf.int64))
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3, num_parallel_calls=3)
    dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(5 * batch_size, 2, seed=3))
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    xs, ids = dataset_3.make_one_shot_iterator().get_next()
    return xs, ids


def collected_batches(files, batch_size):
    """The runner put in the QUEUE_RUNNERS collection by hand, as add_queue_runner would."""
    def parse_record_4(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'], parsed['id']
        with tf.control_dependencies([tf.assert_equal(tf.shape(x), tf.constant([3], tf.int32))]):
            x = tf.identity(x)
        x.set_shape([3])
        with tf.control_dependencies([tf.assert_equal(tf.shape(example_id), tf.constant([], tf.int32))]):
            example_id = tf.identity(example_id)
        example_id.set_shape([])
        return x, example_id

    dataset_4 = tf.data.Dataset.from_tensor_slices(files)
    dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
    dataset_4 = dataset_4.map(parse_record_4)
    dataset_4 = dataset_4.repeat(1)
    dataset_4 = dataset_4.batch(batch_size)
    dataset_4 = dataset_4.prefetch(1)
    return list(dataset_4.make_one_shot_iterator().get_next())


def chained_helpers(files, batch_size):
    """Two queue helpers one after the other: a buffering queue, then a shuffling one."""
    def parse_record_5(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'], parsed['id']
        x.set_shape([3])
        example_id.set_shape([])
        x, example_id = x, example_id
        return x, example_id

    dataset_5 = tf.data.Dataset.from_tensor_slices(files)
    dataset_5 = dataset_5.flat_map(tf.data.TFRecordDataset)
    dataset_5 = dataset_5.map(parse_record_5, num_parallel_calls=2)
    dataset_5 = dataset_5.apply(tf.contrib.data.shuffle_and_repeat(3 * batch_size or 6 * batch_size, 1))
    dataset_5 = dataset_5.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_5 = dataset_5.prefetch(1)
    return list(dataset_5.make_one_shot_iterator().get_next())
