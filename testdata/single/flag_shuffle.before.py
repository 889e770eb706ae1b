"""A shuffle flag passed down from the caller, a batch in each arm of an if/else (one dataset, a tail
per arm), and a shape still left alone with its reason: a record tensor read in a with-header."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def flagged_inputs(files, batch_size, shuffle=True):
    # The producer tests `shuffle` itself, in Python: the migrated code tests it the same way.
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=shuffle)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size=batch_size, allow_smaller_final_batch=True)


def branch_inputs(files, batch_size, shuffle):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=shuffle)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    if shuffle:
        ids = tf.train.shuffle_batch([parsed['id']], batch_size, capacity=50, min_after_dequeue=10,
                                     allow_smaller_final_batch=True)
    else:
        ids = tf.train.batch([parsed['id']], batch_size, allow_smaller_final_batch=True)
    return ids


def returned_inputs(files, batch_size, training):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    if training:
        return tf.train.shuffle_batch({'id': parsed['id']}, batch_size, capacity=40, min_after_dequeue=4,
                                      allow_smaller_final_batch=True)
    else:
        return tf.train.batch({'id': parsed['id']}, batch_size, allow_smaller_final_batch=True)


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
    filename_queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=shuffle)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, lines = reader.read_up_to(filename_queue, num_records=batch_size)
    features = parse_columns(lines)
    # Batches of columns; shuffled ones when asked.
    if shuffle:
        features = tf.train.shuffle_batch(features, batch_size, capacity=50, min_after_dequeue=10,
                                          enqueue_many=True, allow_smaller_final_batch=True)
    else:
        features = tf.train.batch(features, batch_size, enqueue_many=True, allow_smaller_final_batch=True)
    return features, features.pop('species')


def checked_inputs(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    positive = tf.assert_non_negative(parsed['id'])
    with tf.control_dependencies([positive]):
        ids = tf.identity(parsed['id'])
    return tf.train.batch([ids], batch_size)


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
