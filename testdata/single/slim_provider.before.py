"""Shapes of slim input code: a provider over a TFRecord dataset defined in this module."""
import tensorflow as tf

slim = tf.contrib.slim

_ITEMS = {'image': 'A 8x8 RGB image.', 'label': 'The class, 0 to 9.', 'id': 'The example id.'}


def get_split(data_dir, split_name, num_samples):
    """A slim Dataset over the TFRecord files of one split."""
    keys_to_features = {
        'image/encoded': tf.FixedLenFeature((), tf.string, default_value=''),
        'image/format': tf.FixedLenFeature((), tf.string, default_value='raw'),
        'image/class/label': tf.FixedLenFeature([], tf.int64),
        'image/id': tf.FixedLenFeature([], tf.int64),
    }
    items_to_handlers = {
        'image': slim.tfexample_decoder.Image(shape=[8, 8, 3], channels=3),
        'label': slim.tfexample_decoder.Tensor('image/class/label'),
        'id': slim.tfexample_decoder.Tensor('image/id'),
    }
    decoder = slim.tfexample_decoder.TFExampleDecoder(keys_to_features, items_to_handlers)
    return slim.dataset.Dataset(
        data_sources='%s/%s-*.tfrecord' % (data_dir, split_name),
        reader=tf.TFRecordReader,
        decoder=decoder,
        num_samples=num_samples,
        items_to_descriptions=_ITEMS)


def train_inputs(data_dir, batch_size, num_samples=256):
    """Shuffled batches for training: four readers, a shuffling common queue."""
    dataset = get_split(data_dir, 'train', num_samples)
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset,
        num_readers=4,
        common_queue_capacity=20 * batch_size,
        common_queue_min=10 * batch_size)
    [image, label, example_id] = provider.get(['image', 'label', 'id'])

    # Scale to [0, 1] and mirror.
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.flip_left_right(image)

    images, labels, ids = tf.train.batch(
        [image, label, example_id],
        batch_size=batch_size,
        num_threads=4,
        capacity=5 * batch_size)
    return images, labels, ids


def eval_inputs(data_dir, batch_size, num_samples=64):
    """One pass in order over the evaluation split, the last batch kept whole or not."""
    dataset = get_split(data_dir, 'eval', num_samples)
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, shuffle=False, num_epochs=1)
    image, label, example_id = provider.get(['image', 'label', 'id'])
    image = tf.image.convert_image_dtype(image, tf.float32)
    return tf.train.batch([image, label, example_id], batch_size=batch_size, allow_smaller_final_batch=True)


def example_ids(data_dir, batch_size):
    """The ids of examples read by slim's parallel reader, in order, then shuffled by the batch."""
    _, serialized = slim.parallel_reader.parallel_read(
        data_dir + '/train-*.tfrecord', tf.TFRecordReader, num_readers=2, shuffle=False)
    features = tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})
    return tf.train.shuffle_batch([features['image/id']], batch_size, capacity=8 * batch_size,
                                  min_after_dequeue=4 * batch_size)


def one_pass(data_dir, batch_size):
    """Every record once, in file order."""
    _, serialized = slim.parallel_reader.single_pass_read(data_dir + '/eval-*.tfrecord', tf.TFRecordReader)
    features = tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch([features['image/id']], batch_size, allow_smaller_final_batch=True)


def split_inputs(data_dir, split_name, batch_size, fine_labels=False, num_epochs=None):
    """Either split, shuffled only for training; which label item is read is a Python choice."""
    dataset = get_split(data_dir, split_name, 96)
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=2, common_queue_capacity=2 * batch_size, common_queue_min=batch_size / 2,
        shuffle=(split_name == 'train'), num_epochs=num_epochs)
    if fine_labels:
        [image, label] = provider.get(['image', 'id'])
    else:
        [image, label] = provider.get(['image', 'label'])

    image = tf.to_float(image)
    if split_name == 'train':
        image = tf.image.flip_up_down(image)
    else:
        image = tf.image.per_image_standardization(image)

    images, labels = tf.train.batch([image, label], batch_size=batch_size, allow_smaller_final_batch=True)
    tf.logging.info('%d examples in %s', dataset.num_samples, split_name)
    return images, labels


def given_inputs(dataset, batch_size):
    """Batches of whatever slim dataset the caller made (its reader and decoder are not seen here)."""
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, num_readers=2, shuffle=False)
    image, example_id = provider.get(['image', 'id'])
    return tf.train.batch([image, example_id], batch_size=batch_size, allow_smaller_final_batch=True)


def eval_given(data_dir, batch_size):
    return given_inputs(get_split(data_dir, 'eval', 30), batch_size)


def scoped_split(data_dir, split_name):
    """A slim Dataset made and returned inside a name scope."""
    with tf.name_scope('scoped_split'):
        if not split_name:
            raise ValueError('no split name')
        decoder = slim.tfexample_decoder.TFExampleDecoder(
            {'image/encoded': tf.FixedLenFeature((), tf.string), 'image/format': tf.FixedLenFeature((), tf.string),
             'image/id': tf.FixedLenFeature([], tf.int64)},
            {'image': slim.tfexample_decoder.Image(shape=[8, 8, 3], channels=3),
             'id': slim.tfexample_decoder.Tensor('image/id')})
        return slim.dataset.Dataset('%s/%s-*.tfrecord' % (data_dir, split_name), tf.TFRecordReader, decoder, 30, {})


def compressed_eval(data_dir, batch_size):
    """One pass over the evaluation split written ZLIB-compressed: the readers are told so."""
    reader_kwargs = {'options': tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.ZLIB)}
    dataset = scoped_split(data_dir, 'zlib-eval')
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=2, shuffle=False, num_epochs=1, reader_kwargs=reader_kwargs)
    image, example_id = provider.get(['image', 'id'])
    return tf.train.batch([image, example_id], batch_size=batch_size, allow_smaller_final_batch=True)


def compressed_ids(data_dir, batch_size):
    """slim's parallel reader over GZIP-compressed files, named readers, options given in the call."""
    gzip = tf.python_io.TFRecordCompressionType.GZIP
    _, serialized = slim.parallel_reader.parallel_read(
        data_dir + '/gzip-eval-*.tfrecord', tf.TFRecordReader, num_epochs=2, num_readers=3, min_after_dequeue=10,
        reader_kwargs={'name': 'gzip_reader', 'options': tf.python_io.TFRecordOptions(compression_type=gzip)})
    features = tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch([features['image/id']], batch_size, allow_smaller_final_batch=True)
