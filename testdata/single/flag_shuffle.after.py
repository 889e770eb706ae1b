"""A shuffle flag passed down from the caller, a batch in each arm of an if/else (one dataset, a tail
per arm), and a shape still left alone with its reason: a record tensor read in a with-header."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def flagged_inputs(files, batch_size, shuffle=True):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return parsed['x'], parsed['id']

    # The producer tests `shuffle` itself, in Python: the migrated code tests it the same way.
    dataset = tf.data.Dataset.from_tensor_slices(files)
    if shuffle:
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def branch_inputs(files, batch_size, shuffle):
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return parsed['id']

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    if shuffle:
        dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    if shuffle:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        ids = dataset_2.make_one_shot_iterator().get_next()
    else:
        dataset_2 = dataset_2.repeat(1)
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        ids = dataset_2.make_one_shot_iterator().get_next()
    return ids


def returned_inputs(files, batch_size, training):
    def parse_record_3(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return {'id': parsed['id']}

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    if training:
        dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(4, 1))
        dataset_3 = dataset_3.batch(batch_size)
        dataset_3 = dataset_3.prefetch(1)
        return dataset_3.make_one_shot_iterator().get_next()
    else:
        dataset_3 = dataset_3.repeat(1)
        dataset_3 = dataset_3.batch(batch_size)
        dataset_3 = dataset_3.prefetch(1)
        return dataset_3.make_one_shot_iterator().get_next()


_COLUMNS = ['sepal_length', 'sepal_width', 'petal_length', 'petal_width', 'species']


def parse_columns(lines):
    """A dict of columns, built by a helper the pipeline calls per chunk of lines."""
    columns = tf.decode_csv(tf.expand_dims(lines, -1), record_defaults=[[0.0]] * 4 + [[0]])
    features = dict(zip(_COLUMNS, columns))
    features.pop('sepal_width')
    for name in list(features):
        features[name] = tf.identity(features[name], name=name)
    return features


def column_inputs(csv_files, batch_size, shuffle=True):
    def parse_record_4(lines):
        features = parse_columns(lines)
        return features

    dataset_4 = tf.data.Dataset.from_tensor_slices(csv_files)
    if shuffle:
        dataset_4 = dataset_4.shuffle(tf.size(csv_files, out_type=tf.int64))
    dataset_4 = dataset_4.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1).batch(batch_size))
    dataset_4 = dataset_4.map(parse_record_4)
    dataset_4 = dataset_4.apply(tf.contrib.data.unbatch())
    # Batches of columns; shuffled ones when asked.
    if shuffle:
        dataset_4 = dataset_4.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
        dataset_4 = dataset_4.batch(batch_size)
        dataset_4 = dataset_4.prefetch(1)
        features = dataset_4.make_one_shot_iterator().get_next()
    else:
        dataset_4 = dataset_4.repeat(1)
        dataset_4 = dataset_4.batch(batch_size)
        dataset_4 = dataset_4.prefetch(1)
        features = dataset_4.make_one_shot_iterator().get_next()
    return features, features.pop('species')


def checked_inputs(files, batch_size):
    def parse_record_5(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        positive = tf.assert_non_negative(parsed['id'])
        with tf.control_dependencies([positive]):
            ids = tf.identity(parsed['id'])
        return ids

    dataset_5 = tf.data.Dataset.from_tensor_slices(files)
    dataset_5 = dataset_5.shuffle(tf.size(files, out_type=tf.int64))
    dataset_5 = dataset_5.flat_map(tf.data.TFRecordDataset)
    dataset_5 = dataset_5.map(parse_record_5)
    dataset_5 = dataset_5.repeat(1)
    dataset_5 = dataset_5.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_5 = dataset_5.prefetch(1)
    return dataset_5.make_one_shot_iterator().get_next()


def uneven_branches(files, batch_size, shuffle):
    """Left alone: the arms batch different tensors, so no one map function serves both."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    if shuffle:
        batch = tf.train.shuffle_batch([parsed['x']], batch_size, capacity=50, min_after_dequeue=10)
    else:
        batch = tf.train.batch([parsed['id']], batch_size)
    return batch


def maybe_columns(lines, as_dict):
    if as_dict:
        return parse_columns(lines)
    return [lines]


def unknown_structure(csv_files, batch_size):
    """Left alone: the helper returns a dict on one path and a list on the other."""
    filename_queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(filename_queue)
    example = maybe_columns(line, True)
    return tf.train.batch(example, batch_size)
