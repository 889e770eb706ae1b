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
        shuffle_files = options.mode == 'train'
        def parse_record(serialized):
            parsed = tf.parse_single_example(serialized, _FEATURES)
            scaled = parsed['x'] * 2.0
            shifted = scaled + offset
            return shifted, parsed['id']
    # Python between the producer and the batch: any call could reach `options` and change it.
    offset = float(min(len(files), 3))

    # Train on the files in a new order every epoch; evaluate them in order.
    dataset = tf.data.Dataset.from_tensor_slices(files)
    if shuffle_files:
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def image_batches(pattern_files, batch_size, mode):
    """Whole image files with their names, in a new order every epoch only when training."""
    options = RunOptions(mode)
    with tf.name_scope('load_images'):
        shuffle_files_2 = options.mode == 'train'
        def parse_record_2(paths, contents):
            image = tf.image.decode_png(contents, channels=1)
            image = tf.image.resize_images(image, [28, 28])
            return paths, image

    dataset_2 = tf.data.Dataset.from_tensor_slices(pattern_files)
    if shuffle_files_2:
        dataset_2 = dataset_2.shuffle(tf.size(pattern_files, out_type=tf.int64))
    dataset_2 = dataset_2.map(lambda filename: (filename, tf.read_file(filename)))
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def unshuffled_when_evaluating(files, batch_size, mode):
    options = RunOptions(mode)
    shuffle_files_3 = not options.evaluating
    def parse_record_3(serialized):
        ids = tf.parse_single_example(serialized, _FEATURES)['id']
        return ids

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    if shuffle_files_3:
        dataset_3 = dataset_3.shuffle(tf.size(files, out_type=tf.int64))
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return dataset_3.make_one_shot_iterator().get_next()


def one_record(files, mode):
    # Read one record per step: the dataset is built where the read was, after the test.
    options = RunOptions(mode)
    shuffle_files_4 = options.mode == 'train'
    print('reading %d files to %s' % (len(files), options.mode))
    dataset_4 = tf.data.Dataset.from_tensor_slices(files)
    if shuffle_files_4:
        dataset_4 = dataset_4.shuffle(tf.size(files, out_type=tf.int64))
    dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
    dataset_4 = dataset_4.repeat(1)
    serialized = dataset_4.make_one_shot_iterator().get_next()
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.expand_dims(parsed['id'], 0), tf.expand_dims(parsed['x'], 0)


def named_test_batches(files, batch_size, mode):
    def parse_record_4(serialized):
        ids = tf.parse_single_example(serialized, _FEATURES)['id']
        return ids

    dataset_5 = tf.data.Dataset.from_tensor_slices(files)
    if mode == 'train':
        dataset_5 = dataset_5.shuffle(tf.size(files, out_type=tf.int64))
    dataset_5 = dataset_5.flat_map(tf.data.TFRecordDataset)
    dataset_5 = dataset_5.map(parse_record_4)
    dataset_5 = dataset_5.repeat(1)
    dataset_5 = dataset_5.batch(batch_size)
    dataset_5 = dataset_5.prefetch(1)
    return dataset_5.make_one_shot_iterator().get_next()


def training(mode):
    return mode == 'train'


def called_test_batches(files, batch_size, mode):
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=training(mode))
    _, serialized = tf.TFRecordReader().read(file_queue)
    ids = tf.parse_single_example(serialized, _FEATURES)['id']
    return tf.train.batch([ids], batch_size=batch_size, allow_smaller_final_batch=True)
