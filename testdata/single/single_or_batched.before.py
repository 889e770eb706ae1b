"""Texture examples for a painting model: one hand-built queue, shuffling when asked, then either
single records (a batch of one, made with expand_dims) or batches, chosen by `batch_size`. The path
without batching takes one record per run, as the dequeue gave it."""
import tensorflow as tf


def texture_inputs(record_path, batch_size=None, size=None, shuffle=True, jitter=False, epochs=None):
    with tf.name_scope('texture_inputs'):
        paths = tf.train.string_input_producer([record_path], num_epochs=epochs, shuffle=False, capacity=1)
        if shuffle:
            pool = tf.RandomShuffleQueue(capacity=32, min_after_dequeue=8, dtypes=[tf.string],
                                         name='mixed_textures')
        else:
            pool = tf.FIFOQueue(capacity=32, dtypes=[tf.string], name='ordered_textures')
        reader = tf.TFRecordReader()
        _, serialized = reader.read(paths)
        fills = [pool.enqueue([serialized])]
        tf.train.queue_runner.add_queue_runner(tf.train.queue_runner.QueueRunner(pool, fills))
        record = pool.dequeue()
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

        # A batch of one record, or batches of `batch_size`
        if batch_size is None:
            texture = tf.expand_dims(texture, 0)
            original = tf.expand_dims(original, 0)
            kind = tf.expand_dims(kind, 0)
        else:
            [texture, original, kind] = tf.train.batch([texture, original, kind], batch_size=batch_size)

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
