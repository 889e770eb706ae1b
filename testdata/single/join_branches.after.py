"""A reader helper that returns a list of one tensor from inside a variable scope, batched by a
name, and joined over several readers; each batched in an if/else by a `shuffle` flag."""
import tensorflow as tf


def read_scaled(serialized):
    """One record, scaled; a list of one tensor."""
    with tf.variable_scope('read_scaled'):
        parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
        scaled = parsed['x'] * 2.0
        return [scaled]


def single_batches(files, batch_size, shuffle=False):
    def parse_record(serialized):
        point = read_scaled(serialized)
        return point[0]

    dataset = tf.data.Dataset.from_tensor_slices(files)
    if shuffle:
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    if shuffle:
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        batch = dataset.make_one_shot_iterator().get_next()
    else:
        dataset = dataset.repeat(1)
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        batch = dataset.make_one_shot_iterator().get_next()
    return batch


def joined_batches(files, batch_size, shuffle=False, readers=2):
    def parse_record_2(serialized):
        points = read_scaled(serialized)
        return points[0]

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    if shuffle:
        dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=readers)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=readers)
    if shuffle:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        batch = dataset_2.make_one_shot_iterator().get_next()
    else:
        dataset_2 = dataset_2.repeat(1)
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        batch = dataset_2.make_one_shot_iterator().get_next()
    return batch


def looped_branches(files, batch_size, shuffle=False, readers=2):
    def parse_record_3(serialized):
        parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64),
                                                      'v': tf.FixedLenFeature([2], tf.float32)})
        return parsed['id'], parsed['v']

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    if shuffle:
        dataset_3 = dataset_3.shuffle(tf.size(files, out_type=tf.int64))
    dataset_3 = dataset_3.interleave(tf.data.TFRecordDataset, cycle_length=readers)
    dataset_3 = dataset_3.map(parse_record_3, num_parallel_calls=readers)
    if shuffle:
        dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(5, 2))
        dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_3 = dataset_3.prefetch(1)
        ids, values = dataset_3.make_one_shot_iterator().get_next()
    else:
        dataset_3 = dataset_3.repeat(2)
        dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_3 = dataset_3.prefetch(1)
        ids, values = dataset_3.make_one_shot_iterator().get_next()
    return ids, values
