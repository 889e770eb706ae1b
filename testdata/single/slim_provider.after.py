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
    def parse_record(serialized):
        [image, label, example_id] = dataset.decoder.decode(serialized, ['image', 'label', 'id'])

        # Scale to [0, 1] and mirror.
        image = tf.image.convert_image_dtype(image, tf.float32)
        image = tf.image.flip_left_right(image)
        return image, label, example_id

    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=4)
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10 * batch_size))
    dataset_2 = dataset_2.map(parse_record, num_parallel_calls=4)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    images, labels, ids = dataset_2.make_one_shot_iterator().get_next()
    return images, labels, ids


def eval_inputs(data_dir, batch_size, num_samples=64):
    """One pass in order over the evaluation split, the last batch kept whole or not."""
    dataset = get_split(data_dir, 'eval', num_samples)
    def parse_record_2(serialized):
        image, label, example_id = dataset.decoder.decode(serialized, ['image', 'label', 'id'])
        image = tf.image.convert_image_dtype(image, tf.float32)
        return image, label, example_id

    data_files_2 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_3 = tf.data.Dataset.from_tensor_slices(data_files_2)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_2)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return list(dataset_3.make_one_shot_iterator().get_next())


def example_ids(data_dir, batch_size):
    """The ids of examples read by slim's parallel reader, in order, then shuffled by the batch."""
    def parse_record_3(serialized):
        features = tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})
        return features['image/id']

    data_files_3 = tf.contrib.slim.parallel_reader.get_data_files(data_dir + '/train-*.tfrecord')
    dataset_4 = tf.data.Dataset.from_tensor_slices(data_files_3)
    dataset_4 = dataset_4.interleave(tf.data.TFRecordDataset, cycle_length=2)
    dataset_4 = dataset_4.map(parse_record_3)
    dataset_4 = dataset_4.apply(tf.contrib.data.shuffle_and_repeat(4 * batch_size))
    dataset_4 = dataset_4.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_4 = dataset_4.prefetch(1)
    return dataset_4.make_one_shot_iterator().get_next()


def one_pass(data_dir, batch_size):
    """Every record once, in file order."""
    def parse_record_4(serialized):
        features = tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})
        return features['image/id']

    data_files_4 = tf.contrib.slim.parallel_reader.get_data_files(data_dir + '/eval-*.tfrecord')
    dataset_5 = tf.data.Dataset.from_tensor_slices(data_files_4)
    dataset_5 = dataset_5.flat_map(tf.data.TFRecordDataset)
    dataset_5 = dataset_5.map(parse_record_4)
    dataset_5 = dataset_5.repeat(1)
    dataset_5 = dataset_5.batch(batch_size)
    dataset_5 = dataset_5.prefetch(1)
    return dataset_5.make_one_shot_iterator().get_next()


def split_inputs(data_dir, split_name, batch_size, fine_labels=False, num_epochs=None):
    """Either split, shuffled only for training; which label item is read is a Python choice."""
    dataset = get_split(data_dir, split_name, 96)
    def parse_record_5(serialized):
        if fine_labels:
            [image, label] = dataset.decoder.decode(serialized, ['image', 'id'])
        else:
            [image, label] = dataset.decoder.decode(serialized, ['image', 'label'])

        image = tf.to_float(image)
        if split_name == 'train':
            image = tf.image.flip_up_down(image)
        else:
            image = tf.image.per_image_standardization(image)
        return image, label

    data_files_5 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_6 = tf.data.Dataset.from_tensor_slices(data_files_5)
    if split_name == 'train':
        dataset_6 = dataset_6.shuffle(tf.size(data_files_5, out_type=tf.int64))
    dataset_6 = dataset_6.interleave(tf.data.TFRecordDataset, cycle_length=2)
    if split_name == 'train':
        dataset_6 = dataset_6.apply(tf.contrib.data.shuffle_and_repeat(int(batch_size / 2), num_epochs))
    else:
        dataset_6 = dataset_6.repeat(num_epochs)
    dataset_6 = dataset_6.map(parse_record_5)
    dataset_6 = dataset_6.batch(batch_size)
    dataset_6 = dataset_6.prefetch(1)
    images, labels = dataset_6.make_one_shot_iterator().get_next()
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
    def parse_record_7(serialized):
        image, example_id = dataset.decoder.decode(serialized, ['image', 'id'])
        return image, example_id

    data_files_6 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_8 = tf.data.Dataset.from_tensor_slices(data_files_6)
    dataset_8 = dataset_8.interleave(lambda filename: tf.data.TFRecordDataset(filename, compression_type='ZLIB'), cycle_length=2)
    dataset_8 = dataset_8.map(parse_record_7)
    dataset_8 = dataset_8.repeat(1)
    dataset_8 = dataset_8.batch(batch_size)
    dataset_8 = dataset_8.prefetch(1)
    return list(dataset_8.make_one_shot_iterator().get_next())


def compressed_ids(data_dir, batch_size):
    """slim's parallel reader over GZIP-compressed files, named readers, options given in the call."""
    def parse_record_8(serialized):
        features = tf.parse_single_example(serialized, {'image/id': tf.FixedLenFeature([], tf.int64)})
        return features['image/id']

    data_files_7 = tf.contrib.slim.parallel_reader.get_data_files(data_dir + '/gzip-eval-*.tfrecord')
    dataset_9 = tf.data.Dataset.from_tensor_slices(data_files_7)
    dataset_9 = dataset_9.shuffle(tf.size(data_files_7, out_type=tf.int64))
    dataset_9 = dataset_9.interleave(lambda filename: tf.data.TFRecordDataset(filename, compression_type='GZIP'), cycle_length=3)
    dataset_9 = dataset_9.apply(tf.contrib.data.shuffle_and_repeat(10, 2))
    dataset_9 = dataset_9.map(parse_record_8)
    dataset_9 = dataset_9.batch(batch_size)
    dataset_9 = dataset_9.prefetch(1)
    return dataset_9.make_one_shot_iterator().get_next()
