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
    _, serialized = slim.parallel_reader.parallel_read(
        pattern, tf.TFRecordReader, num_epochs=num_epochs, shuffle=training, num_readers=2, capacity=64,
        min_after_dequeue=16)
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
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=2, shuffle=training, num_epochs=None if training else 1, common_queue_min=20)
    image, example_id, negated = provider.get(['image', 'id', 'negated_id'])
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
    _, serialized = slim.parallel_reader.parallel_read(
        pattern, reader_class=tf.TFRecordReader, num_epochs=config.num_epochs if config.num_epochs else None,
        num_readers=config.num_readers, shuffle=config.shuffle, capacity=64, min_after_dequeue=16)
    return tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})['image/id']


def configured_batches(data_dir, batch_size, training=False):
    config = ReaderConfig(shuffle=training, num_epochs=None if training else 1)
    ids = configured_records(data_dir + ('/train-*.tfrecord' if training else '/eval-*.tfrecord'), config)
    return tf.train.batch([ids], batch_size, allow_smaller_final_batch=True)
