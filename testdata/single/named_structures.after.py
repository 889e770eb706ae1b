"""Batching a name instead of a literal: the slice producer's whole output, or a structure the
per-record code built. tf.train.batch gives back a dict for a dict, a list for a list."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def sliced_rows(pattern_files, batch_size):
    labels = [index % 10 for index in range(len(pattern_files))]
    # One name for all the sliced tensors, handed to the batch as it is.
    dataset = tf.data.Dataset.from_tensor_slices((pattern_files, labels))
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def sliced_pairs(pattern_files, batch_size):
    labels = tf.constant([index % 10 for index in range(len(pattern_files))], dtype=tf.int64)
    dataset_2 = tf.data.Dataset.from_tensor_slices((pattern_files, labels))
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(pattern_files, out_type=tf.int64)[0], 2, seed=5))
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    paths, label_batch = dataset_2.make_one_shot_iterator().get_next()
    return paths, label_batch


def named_dict(files, batch_size):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        example = {'scaled': parsed['x'] * 2.0, 'id': parsed['id']}
        return example

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record, num_parallel_calls=2)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return dataset_3.make_one_shot_iterator().get_next()


def named_list(files, batch_size):
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        example = [parsed['x'], parsed['id']]
        return tuple(example)

    dataset_4 = tf.data.Dataset.from_tensor_slices(files)
    dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
    dataset_4 = dataset_4.map(parse_record_2)
    dataset_4 = dataset_4.apply(tf.contrib.data.shuffle_and_repeat(5, 1))
    dataset_4 = dataset_4.batch(batch_size)
    dataset_4 = dataset_4.prefetch(1)
    batch = list(dataset_4.make_one_shot_iterator().get_next())
    return batch


def named_single(files, batch_size):
    def parse_record_3(serialized):
        example = (tf.parse_single_example(serialized, _FEATURES)['id'],)
        return example[0]

    dataset_5 = tf.data.Dataset.from_tensor_slices(files)
    dataset_5 = dataset_5.flat_map(tf.data.TFRecordDataset)
    dataset_5 = dataset_5.map(parse_record_3)
    dataset_5 = dataset_5.repeat(1)
    dataset_5 = dataset_5.batch(batch_size)
    dataset_5 = dataset_5.prefetch(1)
    return dataset_5.make_one_shot_iterator().get_next()


def grown_list(files, batch_size):
    """Left alone: the list grows after it is bound, so its length is not the one written."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    example = [parsed['x']]
    example.append(parsed['id'])
    return tf.train.batch(example, batch_size=batch_size, allow_smaller_final_batch=True)
