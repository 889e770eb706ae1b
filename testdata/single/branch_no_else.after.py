"""Batched in the arms of an if/elif without an else, from per-record tensors that are batches of
one (enqueue_many=True): the path that batches nothing takes one record per run, as the reader
gave it. Migrated, the arms' tails each unbatch, and an `else` takes the map function's elements
as they are, under the names the arms batch."""
import tensorflow as tf


def id_rows(files, batch_size, training):
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32),
                                                        'id': tf.FixedLenFeature([], tf.int64)})
        x = tf.reshape(features['x'] * 2.0, [1, 3])
        example_id = tf.reshape(features['id'], [1])
        return x, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)

    # Batches of `batch_size`, or single rows
    if training:
        dataset = dataset.apply(tf.contrib.data.unbatch())
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, 1, seed=1))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        x, example_id = dataset.make_one_shot_iterator().get_next()
    elif batch_size > 1:
        dataset = dataset.apply(tf.contrib.data.unbatch())
        dataset = dataset.repeat(1)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        x, example_id = dataset.make_one_shot_iterator().get_next()
    else:
        dataset = dataset.repeat(1)
        x, example_id = dataset.make_one_shot_iterator().get_next()
    x.set_shape([batch_size, 3])
    return x, example_id


def returned_rows(files, batch_size, training):
    """Left as it is: the arm returns its batch, and the path that batches nothing goes on."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example_id = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']
    if training:
        return tf.train.batch([example_id], batch_size=batch_size)
    return tf.expand_dims(example_id, 0)
