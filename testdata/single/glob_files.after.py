"""Training files found by a glob pattern when the graph starts (match_filenames_once)."""
import os

import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def pattern_inputs(data_dir, batch_size):
    pattern = os.path.join(data_dir, 'dict_*.tfrecords')
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, FEATURES)
        return parsed['x'], parsed['id']

    def listed_files(names):
        # No file names is an error, as in the producer, not an empty epoch.
        check = tf.Assert(tf.size(names) > 0, ['string_input_producer requires a non-null input tensor'])
        with tf.control_dependencies([check]):
            return tf.data.Dataset.from_tensor_slices(tf.identity(names))

    dataset = tf.data.Dataset.from_tensors(tf.matching_files(pattern)).flat_map(listed_files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(2)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def counted_inputs(data_dir, batch_size):
    """The variable is summarised too: it stays for the summary, the dataset lists the pattern itself
    (a one-shot iterator cannot capture the variable)."""
    filenames = tf.train.match_filenames_once(os.path.join(data_dir, 'dict_*.tfrecords'))
    tf.summary.scalar('input_files', tf.size(filenames))
    files = tf.matching_files(os.path.join(data_dir, 'dict_*.tfrecords'))
    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.repeat()
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()
