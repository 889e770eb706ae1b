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
    """The arm without batching reads `parsed`, which the batching does not take: the map
    function returns, per arm, what that arm takes."""
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
    """The batch is bound to other names than the tensors it batches: the arm without batching
    takes `kind`, the name it reads, from the dataset, one record per run."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    kind = tf.parse_single_example(serialized, {'kind': tf.FixedLenFeature([], tf.int64)})['kind']
    if batch_size is None:
        kinds = tf.expand_dims(kind, 0)
    else:
        kinds = tf.train.batch([kind], batch_size=batch_size)
    return kinds


def batched_then_split(record_path, batch_size=None):
    """Left as it is: the batched list may hold one tensor (`columns` empty), which tf.train.batch
    returns itself, not in a list."""
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


def swatch_columns(record_path, batch_size=None, epochs=None, shuffle=True):
    """Swatches with their tag and a list of value columns, batched as one flat list and split
    again by the statements after the batching; without `batch_size`, one record per run."""
    column_names = ['low', 'high']
    with tf.name_scope('swatch_columns'):
        paths = tf.train.string_input_producer([record_path], num_epochs=epochs, shuffle=False, capacity=1)
        if shuffle:
            pool = tf.RandomShuffleQueue(capacity=32, min_after_dequeue=8, dtypes=[tf.string])
        else:
            pool = tf.FIFOQueue(capacity=32, dtypes=[tf.string])
        reader = tf.TFRecordReader()
        _, serialized = reader.read(paths)
        pool_fills = [pool.enqueue([serialized])]
        tf.train.queue_runner.add_queue_runner(tf.train.queue_runner.QueueRunner(pool, pool_fills))
        swatch_record = pool.dequeue()
        parsed = tf.parse_single_example(swatch_record, {
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64),
            'v': tf.FixedLenFeature([2], tf.float32),
        })
        swatch = tf.reshape(parsed['x'], [1, 3, 1]) * 2.0
        tag = parsed['id']
        columns = [parsed['v'][column] for column in range(len(column_names))]

        if batch_size is None:
            swatch = tf.expand_dims(swatch, 0)
            tag = tf.expand_dims(tag, 0)
            columns = [tf.expand_dims(column, 0) for column in columns]
        else:
            swatch_tag_columns = tf.train.batch([swatch, tag] + columns, batch_size=batch_size)
            swatch, tag = swatch_tag_columns[:2]
            columns = swatch_tag_columns[2:]

        columns = dict(zip(column_names, columns))
        return swatch, tag, columns


def split_then_reads_record(record_path, batch_size=None):
    """Left as it is: a statement after the arm's batching reads `parsed`, a per-record tensor that
    would be the map function's alone."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32),
                                                  'id': tf.FixedLenFeature([], tf.int64)})
    kind = parsed['id']
    seen = kind + 1
    columns = [parsed['x'][0], parsed['x'][1]]
    if batch_size is None:
        kind = tf.expand_dims(kind, 0)
    else:
        batched = tf.train.batch([kind, seen] + columns, batch_size=batch_size)
        kind = batched[0]
        columns = batched[2:] + [parsed['x']]
    return kind, columns


def split_batch_kept(record_path, batch_size=None):
    """Left as it is: the batch's name is read after the if/else too, where the path that batches
    nothing had not bound it."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32),
                                                  'id': tf.FixedLenFeature([], tf.int64)})
    kind = parsed['id']
    seen = kind + 1
    columns = [parsed['x'][0], parsed['x'][1]]
    if batch_size is None:
        kind = tf.expand_dims(kind, 0)
    else:
        batched = tf.train.batch([kind, seen] + columns, batch_size=batch_size)
        kind, seen = batched[:2]
        columns = batched[2:]
    return kind, columns, batched


def split_leaves_one_unbound(record_path, batch_size=None):
    """Left as it is: the statements after the batching do not bind `seen`, which it batches: with
    `seen` computed in the map function, that path would leave it unbound."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32),
                                                  'id': tf.FixedLenFeature([], tf.int64)})
    kind = parsed['id']
    seen = kind + 1
    columns = [parsed['x'][0], parsed['x'][1]]
    if batch_size is None:
        kind = tf.expand_dims(kind, 0)
        seen = tf.expand_dims(seen, 0)
    else:
        batched = tf.train.batch([kind, seen] + columns, batch_size=batch_size)
        kind = batched[0]
        columns = batched[2:]
    return kind, columns, seen


def unbatched_name_bound(record_path, batch_size=None):
    """Left as it is: the arm without batching binds `seen`, a per-record name the batching does
    not take; with `seen` computed in the map function, the batching path would leave it unbound."""
    paths = tf.train.string_input_producer([record_path], shuffle=False)
    _, serialized = tf.TFRecordReader().read(paths)
    parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
    kind = parsed['id']
    seen = kind + 1
    if batch_size is None:
        kind = tf.expand_dims(kind, 0)
        seen = tf.zeros([1], tf.int64)
    else:
        [kind] = tf.train.batch([kind], batch_size=batch_size)
    return kind, seen
