"""slim reads whose records leave the function unbatched: another function batches them."""
import tensorflow as tf

slim = tf.contrib.slim


class Negated(slim.tfexample_decoder.ItemHandler):
    """An item handler of our own: it decodes where provider.get() ran, so it may stay."""

    def __init__(self, key):
        super(Negated, self).__init__([key])
        self._key = key

    def tensors_to_item(self, keys_to_tensors):
        return -keys_to_tensors[self._key]


def id_records(pattern, training):
    """parallel_read's records, parsed here and handed out one a run."""
    num_epochs = None if training else 1
    data_files = tf.contrib.slim.parallel_reader.get_data_files(pattern)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    if training:
        dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    if training:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(16, num_epochs))
    else:
        dataset_2 = dataset_2.repeat(num_epochs)
    serialized = dataset_2.make_one_shot_iterator().get_next()
    features = tf.parse_single_example(serialized, {
        'image/id': tf.FixedLenFeature([], tf.int64),
        'image/class/label': tf.FixedLenFeature([], tf.int64),
    })
    return {'id': features['image/id'], 'label': features['image/class/label']}


def id_batches(data_dir, batch_size, training=False):
    record = id_records(data_dir + ('/train-*.tfrecord' if training else '/eval-*.tfrecord'), training)
    return tf.train.batch(record, batch_size, allow_smaller_final_batch=True)


def decoded_record(data_dir, split_name, training):
    """A provider's items, returned one record at a time."""
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'image/encoded': tf.FixedLenFeature((), tf.string), 'image/format': tf.FixedLenFeature((), tf.string),
         'image/id': tf.FixedLenFeature([], tf.int64)},
        {'image': slim.tfexample_decoder.Image(shape=[8, 8, 3], channels=3), 'id': slim.tfexample_decoder.Tensor('image/id'),
         'negated_id': Negated('image/id')})
    dataset = slim.dataset.Dataset('%s/%s-*.tfrecord' % (data_dir, split_name), tf.TFRecordReader, decoder, 30, {})
    data_files_2 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_3 = tf.data.Dataset.from_tensor_slices(data_files_2)
    if training:
        dataset_3 = dataset_3.shuffle(tf.size(data_files_2, out_type=tf.int64))
    dataset_3 = dataset_3.interleave(tf.data.TFRecordDataset, cycle_length=2)
    if training:
        dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(20, None if training else 1))
    else:
        dataset_3 = dataset_3.repeat(None if training else 1)
    serialized = dataset_3.make_one_shot_iterator().get_next()
    image, example_id, negated = dataset.decoder.decode(serialized, ['image', 'id', 'negated_id'])
    image = tf.to_float(image) / 255.0
    return image, example_id, negated


def record_batches(data_dir, batch_size, training=False):
    image, example_id, negated = decoded_record(data_dir, 'train' if training else 'eval', training)
    return tf.train.batch([image, example_id, negated], batch_size, num_threads=2, capacity=4 * batch_size,
                          allow_smaller_final_batch=True)


class ReaderConfig(object):
    """What a config file says of the reading (the object detection API's InputReader, in a
    simpler form): `shuffle=config.shuffle` is tested where the dataset is built, nothing between
    being able to change it."""

    def __init__(self, shuffle, num_epochs, num_readers=2):
        self.shuffle = shuffle
        self.num_epochs = num_epochs
        self.num_readers = num_readers


def configured_records(pattern, config):
    data_files_3 = tf.contrib.slim.parallel_reader.get_data_files(pattern)
    dataset_4 = tf.data.Dataset.from_tensor_slices(data_files_3)
    if config.shuffle:
        dataset_4 = dataset_4.shuffle(tf.size(data_files_3, out_type=tf.int64))
    dataset_4 = dataset_4.interleave(tf.data.TFRecordDataset, cycle_length=config.num_readers)
    if config.shuffle:
        dataset_4 = dataset_4.apply(tf.contrib.data.shuffle_and_repeat(16, config.num_epochs if config.num_epochs else None))
    else:
        dataset_4 = dataset_4.repeat(config.num_epochs if config.num_epochs else None)
    serialized = dataset_4.make_one_shot_iterator().get_next()
    return tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})['image/id']


def configured_batches(data_dir, batch_size, training=False):
    config = ReaderConfig(shuffle=training, num_epochs=None if training else 1)
    ids = configured_records(data_dir + ('/train-*.tfrecord' if training else '/eval-*.tfrecord'), config)
    return tf.train.batch([ids], batch_size, allow_smaller_final_batch=True)
