"""A hand-built queue filled by a loop of readers on one file queue, each adding its enqueue op to
the list the QueueRunner runs: the files are read several at a time into the queue."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def pooled_batches(files, batch_size, num_readers=3):
    def parse_record(record):
        serialized = record
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return parsed['x'], parsed['id']

    # Raw records from every reader are mixed here before they are parsed.
    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=num_readers)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20, 1))
    dataset = dataset.map(parse_record, num_parallel_calls=num_readers)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def parsed_in_readers(files, batch_size, num_readers=2):
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'] * 2.0, parsed['id']
        with tf.control_dependencies([tf.assert_equal(tf.shape(x), tf.constant([3], tf.int32))]):
            x = tf.identity(x)
        x.set_shape([3])
        with tf.control_dependencies([tf.assert_equal(tf.shape(example_id), tf.constant([], tf.int32))]):
            example_id = tf.identity(example_id)
        example_id.set_shape([])
        return x, example_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=num_readers)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=num_readers)
    dataset_2 = dataset_2.repeat(2)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())
