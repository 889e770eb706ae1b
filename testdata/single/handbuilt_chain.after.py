"""A chain of queues: readers fill an example queue of serialized records, a batching call after
its dequeue parses and batches them (the shape of the Inception-era input code)."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def chained(files, batch_size, num_readers=3):
    def parse_record(value):
        example_serialized = value
        example_serialized.set_shape([])

        parsed = tf.parse_single_example(example_serialized, _FEATURES)
        return parsed['x'], parsed['id']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def shuffled_chain(files, batch_size):
    def parse_record_2(value):
        with tf.name_scope('example_queue'):
            example_serialized = value
        parsed = tf.parse_single_example(example_serialized, _FEATURES)
        return parsed['x'], parsed['id']

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(20, 2))
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    xs, ids = dataset_2.make_one_shot_iterator().get_next()
    return xs, ids


def prefetched_batches(files, batch_size):
    def parse_record_3(value):
        parsed = tf.parse_single_example(value, _FEATURES)
        return parsed['x'], parsed['id']

    # Whole batches wait here, so the model never waits for the batching.
    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(4)
    xs, ids = dataset_3.make_one_shot_iterator().get_next()
    return xs, ids
