"""A slim Dataset made beside its provider, in the same function: once the provider reads with
tf.data, the Dataset goes with it where nothing else reads it, and stays where something does."""
import tensorflow as tf

slim = tf.contrib.slim


def labelled_batches(data_dir, batch_size, is_training=False):
    """Batches of (image, label, id); the split's files counted first, as the Dataset wants."""
    files = tf.gfile.Glob('%s/%s-*.tfrecord' % (data_dir, 'train' if is_training else 'eval'))
    num_examples = sum(1 for f in files for _ in tf.python_io.tf_record_iterator(f))

    items_to_descriptions = {
        'image': 'An 8x8 RGB image.',
        'label': 'The class.',
        'id': 'The example id.',
    }

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
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        keys_to_features=keys_to_features, items_to_handlers=items_to_handlers)

    # The split as slim sees it.
    dataset = slim.dataset.Dataset(
        data_sources=files,
        reader=tf.TFRecordReader,
        decoder=decoder,
        num_samples=num_examples,
        items_to_descriptions=items_to_descriptions)

    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset=dataset,
        num_readers=2,
        num_epochs=None if is_training else 1,
        shuffle=is_training)
    image, label, example_id = provider.get(['image', 'label', 'id'])
    image = tf.image.convert_image_dtype(image, tf.float32)
    return tf.train.batch([image, label, example_id], batch_size=batch_size)


def counted_batches(data_dir, batch_size, num_samples=30):
    """The Dataset is read again after its provider (its size): it stays, and so does its reader class."""
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'image/class/label': tf.FixedLenFeature([], tf.int64), 'image/id': tf.FixedLenFeature([], tf.int64)},
        {'label': slim.tfexample_decoder.Tensor('image/class/label'), 'id': slim.tfexample_decoder.Tensor('image/id')})
    dataset = slim.dataset.Dataset(data_sources='%s/eval-*.tfrecord' % data_dir, reader=tf.TFRecordReader,
                                   decoder=decoder, num_samples=num_samples, items_to_descriptions={})
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False, num_epochs=1)
    label, example_id = provider.get(['label', 'id'])
    batches = tf.train.batch([label, example_id], batch_size=batch_size)
    steps = dataset.num_samples // batch_size
    return batches, steps
