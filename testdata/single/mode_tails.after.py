"""One file queue and reader for every mode; the tail differs by mode. Training works on each record
again and batches it; evaluation stacks each record with its mirror image and takes no batch at all.
Migrated, the dataset is built once, the map function returns per mode what that mode takes, and
the arm without batching reads one record per run from an iterator of its own."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def mode_inputs(files, mode, batch_size, epochs=None):
    def parse_record(serialized):
        example = tf.parse_single_example(serialized, FEATURES)
        x = example['x'] * 2.0
        ids = example['id']
        if mode == 'train':
            # the training copy of each record, reversed
            turned = tf.reverse(x, [0])
            turned.set_shape([3])
            return turned, ids
        return x, ids

    dataset = tf.data.Dataset.from_tensor_slices(files)
    if mode == 'train':
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)

    if mode == 'train':
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, epochs))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        x_batch, id_batch = dataset.make_one_shot_iterator().get_next()
    elif mode == 'test':
        dataset = dataset.repeat(epochs)
        x, ids = dataset.make_one_shot_iterator().get_next()
        x_batch = tf.stack([x, -x], 0)
        id_batch = tf.stack([ids, ids], 0)
    return x_batch, id_batch


def eval_first(files, evaluating, batch_size, epochs=None):
    """The arm without batching comes first and reads the parsed features whole."""
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, FEATURES)
        x = parsed['x']
        if evaluating:
            return parsed
        else:
            return x, parsed['id']

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    if evaluating:
        dataset_2 = dataset_2.repeat(epochs)
        parsed = dataset_2.make_one_shot_iterator().get_next()
        x = tf.expand_dims(parsed['x'], 0)
        ids = tf.expand_dims(parsed['id'], 0)
    else:
        dataset_2 = dataset_2.repeat(epochs)
        dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_2 = dataset_2.prefetch(1)
        x, ids = dataset_2.make_one_shot_iterator().get_next()
    return x, ids


def rebound_in_arms(files, training, batch_size, epochs=None):
    """Each arm works on the record under its own name again, then batches it."""
    def parse_record_3(serialized):
        example = tf.parse_single_example(serialized, FEATURES)
        x, ids = example['x'], example['id']
        if training:
            x = tf.reverse(x, [0])
        else:
            x = x[:2]
        return x, ids

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    if training:
        dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(10, epochs))
        dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_3 = dataset_3.prefetch(1)
        x, ids = dataset_3.make_one_shot_iterator().get_next()
    else:
        dataset_3 = dataset_3.repeat(epochs)
        dataset_3 = dataset_3.batch(batch_size)
        dataset_3 = dataset_3.prefetch(1)
        x, ids = dataset_3.make_one_shot_iterator().get_next()
    return x, ids


def mirrored_views(files, mode, batch_size, mirrored=True, epochs=None):
    """The arm without batching holds an `if` of its own, which stays with it."""
    def parse_record_4(serialized):
        example = tf.parse_single_example(serialized, FEATURES)
        x, ids = example['x'], example['id']
        return x, ids

    dataset_4 = tf.data.Dataset.from_tensor_slices(files)
    dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
    dataset_4 = dataset_4.map(parse_record_4)
    if mode == 'train':
        dataset_4 = dataset_4.repeat(epochs)
        dataset_4 = dataset_4.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_4 = dataset_4.prefetch(1)
        views, id_batch = dataset_4.make_one_shot_iterator().get_next()
    else:
        dataset_4 = dataset_4.repeat(epochs)
        x, ids = dataset_4.make_one_shot_iterator().get_next()
        views = tf.expand_dims(x, 0)
        id_batch = tf.expand_dims(ids, 0)
        if mirrored:
            views = tf.concat([views, tf.expand_dims(-x, 0)], 0)
            id_batch = tf.concat([id_batch, tf.expand_dims(ids, 0)], 0)
    return views, id_batch


def returned_per_mode(files, train, batch_size, epochs=None):
    """Each arm returns: a shuffled batch for training, one record as a batch of one otherwise."""
    def parse_record_5(serialized):
        example = tf.parse_single_example(serialized, FEATURES)
        x, ids = example['x'], example['id']
        return x, ids

    dataset_5 = tf.data.Dataset.from_tensor_slices(files)
    dataset_5 = dataset_5.flat_map(tf.data.TFRecordDataset)
    dataset_5 = dataset_5.map(parse_record_5)
    if train:
        dataset_5 = dataset_5.apply(tf.contrib.data.shuffle_and_repeat(10, epochs))
        dataset_5 = dataset_5.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_5 = dataset_5.prefetch(1)
        return list(dataset_5.make_one_shot_iterator().get_next())
    else:
        dataset_5 = dataset_5.repeat(epochs)
        x, ids = dataset_5.make_one_shot_iterator().get_next()
        return tf.expand_dims(x, 0), tf.expand_dims(ids, 0)


def one_view_or_two(files, mode, batch_size, stereo=False, epochs=None):
    """Testing reads `right`, which the per-record code binds only for a stereo model: the map
    function returns it for testing only where `stereo` says it is bound, and testing takes it
    only there, as it was."""
    def parse_record_6(serialized):
        example = tf.parse_single_example(serialized, FEATURES)
        x, ids = example['x'], example['id']
        if stereo:
            right = -x
        if mode == 'train':
            return x, ids
        return (x, ids, right) if stereo else (x, ids)

    dataset_6 = tf.data.Dataset.from_tensor_slices(files)
    dataset_6 = dataset_6.shuffle(tf.size(files, out_type=tf.int64))
    dataset_6 = dataset_6.flat_map(tf.data.TFRecordDataset)
    dataset_6 = dataset_6.map(parse_record_6)
    if mode == 'train':
        dataset_6 = dataset_6.repeat(epochs)
        dataset_6 = dataset_6.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_6 = dataset_6.prefetch(1)
        batch, id_batch = dataset_6.make_one_shot_iterator().get_next()
    else:
        dataset_6 = dataset_6.repeat(epochs)
        if stereo:
            x, ids, right = dataset_6.make_one_shot_iterator().get_next()
        else:
            x, ids = dataset_6.make_one_shot_iterator().get_next()
        batch = tf.expand_dims(x, 0)
        id_batch = tf.expand_dims(ids, 0)
        if stereo:
            batch = tf.concat([batch, tf.expand_dims(right, 0)], 0)
            id_batch = tf.concat([id_batch, tf.expand_dims(ids, 0)], 0)
    return batch, id_batch


def mono_unless_told(files, mode, batch_size, stereo=False):
    """Left as it is: `right` is bound by an if/elif, whose second test the map function and the
    arm would both have to repeat."""
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    x = tf.parse_single_example(serialized, FEATURES)['x']
    if mode == 'train':
        right = x
    elif stereo:
        right = -x
    if mode == 'train':
        batch = tf.train.batch([x, right], batch_size)
    else:
        batch = tf.expand_dims(x, 0)
        if stereo:
            batch = tf.concat([batch, tf.expand_dims(right, 0)], 0)
    return batch


def stereo_changed_on_the_way(files, mode, batch_size, options):
    """Left as it is: `options.stereo` says where `right` is bound, and a call before the batching
    may change it, so testing could not tell again where it was."""
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    x = tf.parse_single_example(serialized, FEATURES)['x']
    if options.stereo:
        right = -x
    options.validate(mode)
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.expand_dims(x, 0)
        if options.stereo:
            batch = tf.concat([batch, tf.expand_dims(right, 0)], 0)
    return batch


def record_read_after(files, mode, batch_size):
    """Left as it is: `x` is read after the if/elif, where the path that runs neither arm (another
    mode) had the record, and would now have nothing."""
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    x = tf.parse_single_example(serialized, FEATURES)['x']
    batch = None
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    elif mode == 'test':
        batch = tf.expand_dims(x, 0)
    return batch, x
