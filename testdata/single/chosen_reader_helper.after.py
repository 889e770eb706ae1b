"""Two reader helpers, one per file format, and a variable that holds the one a flag chooses; the
training and the evaluation input both read through the variable. Migrated, both helpers take the
record; each dataset reads the files with the reader of the helper the variable holds."""
import tensorflow as tf


def read_tfrecords(serialized):
    example = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return example['id'], example['x']


def read_csv(line):
    columns = tf.decode_csv(line, record_defaults=[[0], [0.0], [0.0], [0.0], [0]])
    return tf.cast(columns[0], tf.int64), tf.stack(columns[1:4])


def inputs(file_format, train_files, eval_files, batch_size, epochs, which='train'):
    if file_format == 'tfrecords':
        read_function = read_tfrecords
    elif file_format == 'csv':
        read_function = read_csv

    def parse_record(serialized):
        train_id, train_x = read_function(serialized)
        return train_id, train_x

    dataset = tf.data.Dataset.from_tensor_slices(train_files)
    dataset = dataset.shuffle(tf.size(train_files, out_type=tf.int64))
    if read_function is read_tfrecords:
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
    else:
        dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, epochs))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    ids, xs = dataset.make_one_shot_iterator().get_next()

    def parse_record_2(serialized):
        eval_id, eval_x = read_function(serialized)
        return eval_id, eval_x

    dataset_2 = tf.data.Dataset.from_tensor_slices(eval_files)
    if read_function is read_tfrecords:
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    else:
        dataset_2 = dataset_2.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    eval_ids, eval_xs = dataset_2.make_one_shot_iterator().get_next()
    return (ids, xs) if which == 'train' else (eval_ids, eval_xs)
