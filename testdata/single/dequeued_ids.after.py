"""Example ids dequeued straight from a producer (no reader), each loaded in Python by a py_func:
into a dict of per-record tensors also returned beside its batches, and into plain names."""
import numpy as np
import tensorflow as tf


class IdTable(object):
    """Examples made up from their ids: a 2x3 float image and a one-hot label of 4 classes."""

    def __init__(self, count):
        self.ids = ['ex%04d' % i for i in range(count)]

    def load(self, example_id):
        number = int(example_id[2:])
        image = np.arange(6, dtype=np.float32).reshape(2, 3) + number
        label = np.eye(4, dtype=np.float32)[number % 4]
        return image, label


def id_example_ops(table, batch_size, threads=2, ids=None, shuffle=True, epochs=None):
    if ids is None:
        ids = table.ids

    with tf.device('/cpu:0'), tf.name_scope('examples'):
        def parse_record(row):
            example = {}
            example['id'] = row

            example['id'], example['image'], example['label'] = tf.py_func(
                load, inp=[example['id']], Tout=[tf.string, tf.float32, tf.float32], name='load_example')
            example['id'].set_shape([])
            example['image'].set_shape(image_shape)
            example['label'].set_shape(label_shape)
            return example

        image_shape, label_shape = [x.shape for x in table.load(ids[0])]

        def load(example_id):
            image, label = table.load(example_id.decode())
            return example_id, image, label

    rows = tf.convert_to_tensor(ids)
    dataset = tf.data.Dataset.from_tensor_slices(rows)
    dataset = dataset.shuffle(tf.shape(rows, out_type=tf.int64)[0])
    dataset = dataset.map(parse_record, num_parallel_calls=threads)
    # Returned as before, one record at a time; the callers take only the batches.
    example = dataset.make_one_shot_iterator().get_next()
    if shuffle:
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(2 * batch_size, epochs))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        batches = dataset.make_one_shot_iterator().get_next()
    else:
        dataset = dataset.repeat(epochs)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        batches = dataset.make_one_shot_iterator().get_next()
    return example, batches


def example_batches(count, batch_size, shuffle=True, epochs=None):
    _, batches = id_example_ops(IdTable(count), batch_size, shuffle=shuffle, epochs=epochs)
    return batches


def labelled_paths(paths, batch_size):
    def parse_record_2(path):
        size = tf.py_func(lambda p: np.int64(len(p)), [path], tf.int64)
        size.set_shape([])
        return path, size

    # One pass over the paths, in order.
    dataset_2 = tf.data.Dataset.from_tensor_slices(paths)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def id_batches(ids, batch_size, epochs=1):
    dataset_3 = tf.data.Dataset.from_tensor_slices(ids)
    dataset_3 = dataset_3.repeat(epochs)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return dataset_3.make_one_shot_iterator().get_next()


def looked_at_ops(table, batch_size):
    record = {}
    record['id'] = tf.train.string_input_producer(table.ids).dequeue()
    record['bucket'] = tf.string_to_hash_bucket_fast(record['id'], 10)
    batches = tf.train.batch(record, batch_size=batch_size)
    return record, batches


def peeked_batches(table, batch_size):
    # The records are used here: a caller the migration cannot serve.
    record, batches = looked_at_ops(table, batch_size)
    tf.summary.text('first_id', record['id'])
    return batches
