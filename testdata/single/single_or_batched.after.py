"""Texture examples for a painting model: one hand-built queue, shuffling when asked, then either
single records (a batch of one, made with expand_dims) or batches, chosen by `batch_size`. The path
without batching takes one record per run, as the dequeue gave it."""
import tensorflow as tf


def texture_inputs(record_path, batch_size=None, size=None, shuffle=True, jitter=False, epochs=None):
    with tf.name_scope('texture_inputs'):
        def parse_record(serialized):
            record = serialized
            parsed = tf.parse_single_example(record, {
                'x': tf.FixedLenFeature([3], tf.float32),
                'id': tf.FixedLenFeature([], tf.int64),
            })
            texture = tf.reshape(parsed['x'], [1, 3, 1])
            kind = parsed['id']
            if size:
                texture = tf.image.resize_images(texture, [size, size])
            original = texture
            if jitter:
                texture = texture * 0.5
            return texture, original, kind

        dataset = tf.data.Dataset.from_tensor_slices([record_path])
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record)

        # A batch of one record, or batches of `batch_size`
        if batch_size is None:
            if shuffle:
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(8, epochs))
            else:
                dataset = dataset.repeat(epochs)
            dataset = dataset.prefetch(1)
            [texture, original, kind] = dataset.make_one_shot_iterator().get_next()
            texture = tf.expand_dims(texture, 0)
            original = tf.expand_dims(original, 0)
            kind = tf.expand_dims(kind, 0)
        else:
            if shuffle:
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(8, epochs))
            else:
                dataset = dataset.repeat(epochs)
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
            dataset = dataset.prefetch(1)
            [texture, original, kind] = dataset.make_one_shot_iterator().get_next()

        if jitter:
            texture = texture + 0.25
        return texture, kind, original


def unbatched_name_read(record_path, batch_size=None):
    """Left as it is: the arm without batching reads `parsed`, which the batching does not take."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    parsed = tf.parse_single_example(serialized, {'kind': tf.FixedLenFeature([], tf.int64)})
    kind = parsed['kind']
    if batch_size is None:
        kind = tf.expand_dims(parsed['kind'], 0)
    else:
        kind = tf.train.batch([kind], batch_size=batch_size)
    return kind


def renamed_batch(record_path, batch_size=None):
    """Left as it is: the batch is bound to other names than the tensors it batches."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    kind = tf.parse_single_example(serialized, {'kind': tf.FixedLenFeature([], tf.int64)})['kind']
    if batch_size is None:
        kinds = tf.expand_dims(kind, 0)
    else:
        kinds = tf.train.batch([kind], batch_size=batch_size)
    return kinds


def batched_then_split(record_path, batch_size=None):
    """Left as it is: the arm's batch is split by later statements of the arm, not bound as batched."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32),
                                                  'id': tf.FixedLenFeature([], tf.int64)})
    columns = [parsed['x'][0], parsed['x'][1]]
    kind = parsed['id']
    if batch_size is None:
        kind = tf.expand_dims(kind, 0)
    else:
        batched = tf.train.batch([kind] + columns, batch_size=batch_size)
        kind = batched[0]
        columns = batched[1:]
    return kind, columns
