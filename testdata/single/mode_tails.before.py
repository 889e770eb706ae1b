"""One file queue and reader for every mode; the tail differs by mode. Training works on each record
again and batches it; evaluation stacks each record with its mirror image and takes no batch at all.
Migrated, the dataset is built once, the map function returns per mode what that mode takes, and
the arm without batching reads one record per run from an iterator of its own."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def mode_inputs(files, mode, batch_size, epochs=None):
    filename_queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=mode == 'train')
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example = tf.parse_single_example(serialized, FEATURES)
    x = example['x'] * 2.0
    ids = example['id']

    if mode == 'train':
        # the training copy of each record, reversed
        turned = tf.reverse(x, [0])
        turned.set_shape([3])
        x_batch, id_batch = tf.train.shuffle_batch([turned, ids], batch_size, capacity=40,
                                                   min_after_dequeue=10, num_threads=2)
    elif mode == 'test':
        x_batch = tf.stack([x, -x], 0)
        id_batch = tf.stack([ids, ids], 0)
    return x_batch, id_batch


def eval_first(files, evaluating, batch_size, epochs=None):
    """The arm without batching comes first and reads the parsed features whole."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    parsed = tf.parse_single_example(serialized, FEATURES)
    x = parsed['x']
    if evaluating:
        x = tf.expand_dims(parsed['x'], 0)
        ids = tf.expand_dims(parsed['id'], 0)
    else:
        x, ids = tf.train.batch([x, parsed['id']], batch_size)
    return x, ids


def rebound_in_arms(files, training, batch_size, epochs=None):
    """Each arm works on the record under its own name again, then batches it."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    example = tf.parse_single_example(serialized, FEATURES)
    x, ids = example['x'], example['id']
    if training:
        x = tf.reverse(x, [0])
        x, ids = tf.train.shuffle_batch([x, ids], batch_size, capacity=40, min_after_dequeue=10)
    else:
        x = x[:2]
        x, ids = tf.train.batch([x, ids], batch_size, allow_smaller_final_batch=True)
    return x, ids


def mirrored_views(files, mode, batch_size, mirrored=True, epochs=None):
    """The arm without batching holds an `if` of its own, which stays with it."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    example = tf.parse_single_example(serialized, FEATURES)
    x, ids = example['x'], example['id']
    if mode == 'train':
        views, id_batch = tf.train.batch([x, ids], batch_size)
    else:
        views = tf.expand_dims(x, 0)
        id_batch = tf.expand_dims(ids, 0)
        if mirrored:
            views = tf.concat([views, tf.expand_dims(-x, 0)], 0)
            id_batch = tf.concat([id_batch, tf.expand_dims(ids, 0)], 0)
    return views, id_batch


def returned_per_mode(files, train, batch_size, epochs=None):
    """Each arm returns: a shuffled batch for training, one record as a batch of one otherwise."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    example = tf.parse_single_example(serialized, FEATURES)
    x, ids = example['x'], example['id']
    if train:
        return tf.train.shuffle_batch([x, ids], batch_size, capacity=40, min_after_dequeue=10)
    else:
        return tf.expand_dims(x, 0), tf.expand_dims(ids, 0)


def one_view_or_two(files, mode, batch_size, stereo=False, epochs=None):
    """Testing reads `right`, which the per-record code binds only for a stereo model: the map
    function returns it for testing only where `stereo` says it is bound, and testing takes it
    only there, as it was."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=epochs)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    example = tf.parse_single_example(serialized, FEATURES)
    x, ids = example['x'], example['id']
    if stereo:
        right = -x
    if mode == 'train':
        batch, id_batch = tf.train.batch([x, ids], batch_size)
    else:
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
