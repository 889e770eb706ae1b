"""A queue class chosen by a flag (a RandomShuffleQueue when shuffling, else a FIFOQueue), its one
enqueue op kept in a list for the QueueRunner: one queue that shuffles when the flag says so."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def flagged_batches(files, batch_size, shuffle=True):
    def parse_record(serialized):
        record = serialized
        parsed = tf.parse_single_example(record, _FEATURES)
        return parsed['x'], parsed['id']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    if shuffle:
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20, 1, seed=3))
    else:
        dataset = dataset.repeat(1)
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def ordered_or_mixed(files, batch_size, in_order=False):
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'] + 1.0, parsed['id']
        with tf.control_dependencies([tf.assert_equal(tf.shape(x), tf.constant([3], tf.int32))]):
            x = tf.identity(x)
        x.set_shape([3])
        with tf.control_dependencies([tf.assert_equal(tf.shape(example_id), tf.constant([], tf.int32))]):
            example_id = tf.identity(example_id)
        example_id.set_shape([])
        return x, example_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    if not in_order:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(2 * batch_size, 1))
    else:
        dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def sized_by_mode(files, batch_size, train=True):
    """Inception's pair: a bigger, shuffling queue for training, a smaller FIFOQueue otherwise. The
    capacities only said how much each held: one dataset, shuffled with the RandomShuffleQueue's
    buffer when training."""
    per_shard = 25
    def parse_record_3(serialized):
        record = serialized
        parsed = tf.parse_single_example(record, _FEATURES)
        return parsed['x'], parsed['id']

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    if train:
        dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(per_shard * 2 or per_shard * 2 + 3 * batch_size, 1))
    else:
        dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return list(dataset_3.make_one_shot_iterator().get_next())
