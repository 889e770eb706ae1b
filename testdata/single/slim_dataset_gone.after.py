"""A slim Dataset made beside its provider, in the same function: once the provider reads with
tf.data, the Dataset goes with it where nothing else reads it, and stays where something does."""
import tensorflow as tf

slim = tf.contrib.slim


def labelled_batches(data_dir, batch_size, is_training=False):
    """Batches of (image, label, id); the split's files counted first, as the Dataset wants."""
    files = tf.gfile.Glob('%s/%s-*.tfrecord' % (data_dir, 'train' if is_training else 'eval'))
    num_examples = sum(1 for f in files for _ in tf.python_io.tf_record_iterator(f))

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

    def parse_record(serialized):
        image, label, example_id = decoder.decode(serialized, ['image', 'label', 'id'])
        image = tf.image.convert_image_dtype(image, tf.float32)
        return image, label, example_id

    data_files = tf.contrib.slim.parallel_reader.get_data_files(files)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    if is_training:
        dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    if is_training:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(128, None if is_training else 1))
    else:
        dataset_2 = dataset_2.repeat(None if is_training else 1)
    dataset_2 = dataset_2.map(parse_record)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def counted_batches(data_dir, batch_size, num_samples=30):
    """The Dataset is read again after its provider (its size): it stays, and so does its reader class."""
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'image/class/label': tf.FixedLenFeature([], tf.int64), 'image/id': tf.FixedLenFeature([], tf.int64)},
        {'label': slim.tfexample_decoder.Tensor('image/class/label'), 'id': slim.tfexample_decoder.Tensor('image/id')})
    dataset = slim.dataset.Dataset(data_sources='%s/eval-*.tfrecord' % data_dir, reader=tf.TFRecordReader,
                                   decoder=decoder, num_samples=num_samples, items_to_descriptions={})
    def parse_record_2(serialized):
        label, example_id = dataset.decoder.decode(serialized, ['label', 'id'])
        return label, example_id

    data_files_2 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_3 = tf.data.Dataset.from_tensor_slices(data_files_2)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_2)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    batches = list(dataset_3.make_one_shot_iterator().get_next())
    steps = dataset.num_samples // batch_size
    return batches, steps
