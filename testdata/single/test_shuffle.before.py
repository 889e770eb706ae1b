"""`shuffle=` given as a test (`options.mode == 'train'`, `not options.evaluating`): the producer
evaluated it once, where it stood. The migration evaluates it there too, into a name of its own,
and shuffles the files under that name where the dataset is built, whatever runs in between
(here plain Python calls, which a test of the attribute itself at the batch could not be
proven to survive). A test of names alone is tested where the dataset is built. A test
that calls a function stays, with the reason."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


class RunOptions(object):
    """What a command line would give: the mode, and whether this run only evaluates."""

    def __init__(self, mode):
        self.mode = mode
        self.evaluating = mode != 'train'


def mode_batches(files, batch_size, mode):
    options = RunOptions(mode)
    with tf.name_scope('load_records'):
        # Train on the files in a new order every epoch; evaluate them in order.
        file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=options.mode == 'train')
        reader = tf.TFRecordReader()
        _, serialized = reader.read(file_queue)
        parsed = tf.parse_single_example(serialized, _FEATURES)
        scaled = parsed['x'] * 2.0
    # Python between the producer and the batch: any call could reach `options` and change it.
    offset = float(min(len(files), 3))
    shifted = scaled + offset
    return tf.train.batch([shifted, parsed['id']], batch_size=batch_size, allow_smaller_final_batch=True)


def image_batches(pattern_files, batch_size, mode):
    """Whole image files with their names, in a new order every epoch only when training."""
    options = RunOptions(mode)
    with tf.name_scope('load_images'):
        path_queue = tf.train.string_input_producer(pattern_files, num_epochs=1,
                                                    shuffle=options.mode == 'train')
        paths, contents = tf.WholeFileReader().read(path_queue)
        image = tf.image.decode_png(contents, channels=1)
        image = tf.image.resize_images(image, [28, 28])
    return tf.train.batch([paths, image], batch_size=batch_size, allow_smaller_final_batch=True)


def unshuffled_when_evaluating(files, batch_size, mode):
    options = RunOptions(mode)
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=not options.evaluating)
    _, serialized = tf.TFRecordReader().read(file_queue)
    ids = tf.parse_single_example(serialized, _FEATURES)['id']
    return tf.train.batch([ids], batch_size=batch_size, allow_smaller_final_batch=True)


def one_record(files, mode):
    # Read one record per step: the dataset is built where the read was, after the test.
    options = RunOptions(mode)
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=options.mode == 'train')
    print('reading %d files to %s' % (len(files), options.mode))
    _, serialized = tf.TFRecordReader().read(file_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.expand_dims(parsed['id'], 0), tf.expand_dims(parsed['x'], 0)


def named_test_batches(files, batch_size, mode):
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=mode == 'train')
    _, serialized = tf.TFRecordReader().read(file_queue)
    ids = tf.parse_single_example(serialized, _FEATURES)['id']
    return tf.train.batch([ids], batch_size=batch_size, allow_smaller_final_batch=True)


def training(mode):
    return mode == 'train'


def called_test_batches(files, batch_size, mode):
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=training(mode))
    _, serialized = tf.TFRecordReader().read(file_queue)
    ids = tf.parse_single_example(serialized, _FEATURES)['id']
    return tf.train.batch([ids], batch_size=batch_size, allow_smaller_final_batch=True)
