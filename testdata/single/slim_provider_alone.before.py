"""A module whose provider is read one record a run: nothing in it batches."""
import tensorflow as tf

slim = tf.contrib.slim


def _dataset(data_dir, split_name, size):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'image/encoded': tf.FixedLenFeature((), tf.string), 'image/format': tf.FixedLenFeature((), tf.string),
         'image/id': tf.FixedLenFeature([], tf.int64)},
        {'image': slim.tfexample_decoder.Image(shape=[8, 8, 3], channels=3),
         'id': slim.tfexample_decoder.Tensor('image/id')})
    return slim.dataset.Dataset('%s/%s-*.tfrecord' % (data_dir, split_name), tf.TFRecordReader, decoder, size, {})


def eval_record(data_dir):
    """Each evaluation example once, in file order, scaled to [0, 1]."""
    dataset = _dataset(data_dir, 'eval', 30)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, num_readers=1, shuffle=False, num_epochs=1)
    image, example_id = provider.get(['image', 'id'])
    image = tf.to_float(image) / 255.0
    return {'image': image, 'id': example_id}


def shuffled_record(data_dir, num_epochs=None):
    """Training examples, two files at a time, mixed in a buffer of 20."""
    dataset = _dataset(data_dir, 'train', 96)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, num_readers=2, common_queue_min=20,
                                                              num_epochs=num_epochs)
    [image, example_id] = provider.get(['image', 'id'])
    return tf.image.flip_left_right(image), example_id
