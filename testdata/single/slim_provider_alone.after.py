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
    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.repeat(1)
    serialized = dataset_2.make_one_shot_iterator().get_next()
    image, example_id = dataset.decoder.decode(serialized, ['image', 'id'])
    image = tf.to_float(image) / 255.0
    return {'image': image, 'id': example_id}


def shuffled_record(data_dir, num_epochs=None):
    """Training examples, two files at a time, mixed in a buffer of 20."""
    dataset = _dataset(data_dir, 'train', 96)
    data_files_2 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_3 = tf.data.Dataset.from_tensor_slices(data_files_2)
    dataset_3 = dataset_3.shuffle(tf.size(data_files_2, out_type=tf.int64))
    dataset_3 = dataset_3.interleave(tf.data.TFRecordDataset, cycle_length=2)
    dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(20, num_epochs))
    serialized = dataset_3.make_one_shot_iterator().get_next()
    [image, example_id] = dataset.decoder.decode(serialized, ['image', 'id'])
    return tf.image.flip_left_right(image), example_id
