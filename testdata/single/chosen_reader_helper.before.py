"""Two reader helpers, one per file format, and a variable that holds the one a flag chooses; the
training and the evaluation input both read through the variable. Migrated, both helpers take the
record; each dataset reads the files with the reader of the helper the variable holds."""
import tensorflow as tf


def read_tfrecords(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return example['id'], example['x']


def read_csv(filename_queue):
    # The first line of each file names the columns.
    reader = tf.TextLineReader(skip_header_lines=1)
    key, line = reader.read(filename_queue)
    columns = tf.decode_csv(line, record_defaults=[[0], [0.0], [0.0], [0.0], [0]])
    return tf.cast(columns[0], tf.int64), tf.stack(columns[1:4])


def inputs(file_format, train_files, eval_files, batch_size, epochs, which='train'):
    if file_format == 'tfrecords':
        read_function = read_tfrecords
    elif file_format == 'csv':
        read_function = read_csv

    train_queue = tf.train.string_input_producer(train_files, num_epochs=epochs)
    train_id, train_x = read_function(train_queue)
    ids, xs = tf.train.shuffle_batch([train_id, train_x], batch_size=batch_size, capacity=50,
                                     min_after_dequeue=10)

    eval_queue = tf.train.string_input_producer(eval_files, num_epochs=1, shuffle=False)
    eval_id, eval_x = read_function(eval_queue)
    eval_ids, eval_xs = tf.train.batch([eval_id, eval_x], batch_size=batch_size)
    return (ids, xs) if which == 'train' else (eval_ids, eval_xs)
