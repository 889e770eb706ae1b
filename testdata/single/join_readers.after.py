"""The 'Reading data' guide's pattern: one reader helper, several readers on one file queue, their
records mixed by (shuffle_)batch_join; the helper returning a tuple, or a dict."""
import tensorflow as tf


def read_my_file_format(record_string):
    record_defaults = [[0.0], [0.0], [0.0], [0.0], [0]]
    col1, col2, col3, col4, label = tf.decode_csv(record_string, record_defaults)
    features = tf.stack([col1, col2, col3, col4])
    return features, label


def input_pipeline(filenames, batch_size, num_epochs=None, read_threads=3):
    def parse_record(record_string):
        example_list = read_my_file_format(record_string)
        return tuple(example_list)

    min_after_dequeue = 20
    capacity = min_after_dequeue + 3 * batch_size

    dataset = tf.data.Dataset.from_tensor_slices(filenames)
    dataset = dataset.shuffle(tf.size(filenames, out_type=tf.int64))
    dataset = dataset.interleave(lambda filename: tf.data.TextLineDataset(filename).skip(1), cycle_length=read_threads)
    dataset = dataset.map(parse_record, num_parallel_calls=read_threads)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_after_dequeue or capacity, num_epochs))
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    example_batch, label_batch = dataset.make_one_shot_iterator().get_next()
    return example_batch, label_batch


def ordered_pipeline(filenames, batch_size):
    def parse_record_2(record_string):
        rows = read_my_file_format(record_string)
        return tuple(rows)

    dataset_2 = tf.data.Dataset.from_tensor_slices(filenames)
    dataset_2 = dataset_2.interleave(lambda filename: tf.data.TextLineDataset(filename).skip(1), cycle_length=2)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def read_example(serialized):
    features = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
    return {'x': features['x'], 'raw': serialized}


def dict_inputs(files, batch_size):
    def parse_record_3(serialized):
        readers = read_example(serialized)
        return readers

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.interleave(tf.data.TFRecordDataset, cycle_length=2)
    dataset_3 = dataset_3.map(parse_record_3, num_parallel_calls=2)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    return dataset_3.make_one_shot_iterator().get_next()
