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
    """The arm without batching reads `parsed`, which the batching does not take: the map
    function returns, per arm, what that arm takes."""
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, {'kind': tf.FixedLenFeature([], tf.int64)})
        kind = parsed['kind']
        if batch_size is None:
            return parsed
        else:
            return kind

    dataset_2 = tf.data.Dataset.from_tensor_slices([record_path])
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    if batch_size is None:
        dataset_2 = dataset_2.repeat()
        parsed = dataset_2.make_one_shot_iterator().get_next()
        kind = tf.expand_dims(parsed['kind'], 0)
    else:
        dataset_2 = dataset_2.repeat()
        dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_2 = dataset_2.prefetch(1)
        kind = dataset_2.make_one_shot_iterator().get_next()
    return kind


def renamed_batch(record_path, batch_size=None):
    """The batch is bound to other names than the tensors it batches: the arm without batching
    takes `kind`, the name it reads, from the dataset, one record per run."""
    def parse_record_3(serialized):
        kind = tf.parse_single_example(serialized, {'kind': tf.FixedLenFeature([], tf.int64)})['kind']
        return kind

    dataset_3 = tf.data.Dataset.from_tensor_slices([record_path])
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    if batch_size is None:
        dataset_3 = dataset_3.repeat()
        kind = dataset_3.make_one_shot_iterator().get_next()
        kinds = tf.expand_dims(kind, 0)
    else:
        dataset_3 = dataset_3.repeat()
        dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_3 = dataset_3.prefetch(1)
        kinds = dataset_3.make_one_shot_iterator().get_next()
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
        def parse_record_4(serialized):
            swatch_record = serialized
            parsed = tf.parse_single_example(swatch_record, {
                'x': tf.FixedLenFeature([3], tf.float32),
                'id': tf.FixedLenFeature([], tf.int64),
                'v': tf.FixedLenFeature([2], tf.float32),
            })
            swatch = tf.reshape(parsed['x'], [1, 3, 1]) * 2.0
            tag = parsed['id']
            columns = [parsed['v'][column] for column in range(len(column_names))]
            return tuple([swatch, tag] + columns)

        dataset_4 = tf.data.Dataset.from_tensor_slices([record_path])
        dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
        dataset_4 = dataset_4.map(parse_record_4)

        if batch_size is None:
            if shuffle:
                dataset_4 = dataset_4.apply(tf.contrib.data.shuffle_and_repeat(8, epochs))
            else:
                dataset_4 = dataset_4.repeat(epochs)
            dataset_4 = dataset_4.prefetch(1)
            swatch_tag_columns = list(dataset_4.make_one_shot_iterator().get_next())
            swatch, tag = swatch_tag_columns[:2]
            columns = swatch_tag_columns[2:]
            swatch = tf.expand_dims(swatch, 0)
            tag = tf.expand_dims(tag, 0)
            columns = [tf.expand_dims(column, 0) for column in columns]
        else:
            if shuffle:
                dataset_4 = dataset_4.apply(tf.contrib.data.shuffle_and_repeat(8, epochs))
            else:
                dataset_4 = dataset_4.repeat(epochs)
            dataset_4 = dataset_4.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
            dataset_4 = dataset_4.prefetch(1)
            swatch_tag_columns = list(dataset_4.make_one_shot_iterator().get_next())
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
