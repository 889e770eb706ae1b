"""slim providers whose TFExampleDecoder has item handlers of the module's own."""
import tensorflow as tf

slim = tf.contrib.slim


class RawPixels(slim.tfexample_decoder.ItemHandler):
    """Raw bytes as a fixed-shape image centred on 0: graph ops on the parsed tensor only."""

    def __init__(self, key, shape, dtype=tf.uint8):
        super(RawPixels, self).__init__([key])
        self._key = key
        self._shape = list(shape)
        self._dtype = dtype

    def tensors_to_item(self, keys_to_tensors):
        def decode(buffer):
            return tf.reshape(tf.decode_raw(buffer, out_type=self._dtype), self._shape)

        return self._centred(decode(keys_to_tensors[self._key]))

    def _centred(self, pixels):
        return tf.cast(pixels, tf.int32) - 128


class ShiftedId(slim.tfexample_decoder.ItemHandler):

    def __init__(self, key, shift):
        super(ShiftedId, self).__init__([key])
        self._key, self._shift = key, shift

    def tensors_to_item(self, keys_to_tensors):
        return keys_to_tensors[self._key] + self._shift


class CountedId(slim.tfexample_decoder.ItemHandler):
    """Keeps a count of its calls: state a map function would not keep the same way."""

    def __init__(self, key):
        super(CountedId, self).__init__([key])
        self._key = key
        self.calls = 0

    def tensors_to_item(self, keys_to_tensors):
        self.calls += 1
        return keys_to_tensors[self._key]


class NamedLabel(slim.tfexample_decoder.ItemHandler):
    """Looks the label's name up in a table, which a one-shot iterator cannot capture."""

    def __init__(self, key, names):
        super(NamedLabel, self).__init__([key])
        self._key, self._names = key, names

    def tensors_to_item(self, keys_to_tensors):
        table = tf.contrib.lookup.index_to_string_table_from_tensor(self._names)
        return table.lookup(keys_to_tensors[self._key])


_FEATURES = {
    'image/encoded': tf.FixedLenFeature((), tf.string),
    'image/id': tf.FixedLenFeature([], tf.int64),
    'image/class/label': tf.FixedLenFeature([], tf.int64),
}


def raw_dataset(data_dir, split_name):
    handlers = {
        'pixels': RawPixels('image/encoded', [8, 8, 3]),
        'shifted_id': ShiftedId('image/id', 1000),
        'id': slim.tfexample_decoder.Tensor('image/id'),
    }
    decoder = slim.tfexample_decoder.TFExampleDecoder(_FEATURES, handlers)
    return slim.dataset.Dataset('%s/%s-*.tfrecord' % (data_dir, split_name), tf.TFRecordReader, decoder, 30, {})


def pixel_batches(data_dir, batch_size, split_name='eval', num_epochs=1):
    """Decoded by the module's own handlers, inside the map function once migrated."""
    dataset = raw_dataset(data_dir, split_name)
    def parse_record(serialized):
        pixels, shifted_id, example_id = dataset.decoder.decode(serialized, ['pixels', 'shifted_id', 'id'])
        pixels = tf.image.flip_left_right(pixels)
        return pixels, shifted_id, example_id

    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    if split_name == 'train':
        dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    if split_name == 'train':
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(128, num_epochs))
    else:
        dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.map(parse_record)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def counted_batches(data_dir, batch_size):
    decoder = slim.tfexample_decoder.TFExampleDecoder(_FEATURES, {'id': CountedId('image/id')})
    dataset = slim.dataset.Dataset(data_dir + '/eval-*.tfrecord', tf.TFRecordReader, decoder, 30, {})
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [example_id] = provider.get(['id'])
    return tf.train.batch([example_id], batch_size)


def named_batches(data_dir, batch_size):
    decoder = slim.tfexample_decoder.TFExampleDecoder(_FEATURES, {'name': NamedLabel('image/class/label', ['a', 'b'])})
    dataset = slim.dataset.Dataset(data_dir + '/eval-*.tfrecord', tf.TFRecordReader, decoder, 30, {})
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [name] = provider.get(['name'])
    return tf.train.batch([name], batch_size)


def noisy_batches(data_dir, batch_size, noisy=False):
    """`noise` is bound before the per-record code and rebound in it: the map function starts from a copy."""
    dataset = raw_dataset(data_dir, 'eval')
    graph_seed = tf.get_default_graph().seed

    def parse_record_4(serialized):
        tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
        noise_2 = noise
        [pixels] = dataset.decoder.decode(serialized, ['pixels'])
        if noisy:
            noise_2 = tf.random_uniform(tf.shape(pixels), maxval=2, dtype=tf.int32)
        if noise_2 is not None:
            pixels = pixels + noise_2
        return pixels

    noise = None

    data_files_2 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_5 = tf.data.Dataset.from_tensor_slices(data_files_2)
    dataset_5 = dataset_5.flat_map(tf.data.TFRecordDataset)
    dataset_5 = dataset_5.map(parse_record_4)
    dataset_5 = dataset_5.repeat()
    dataset_5 = dataset_5.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_5 = dataset_5.prefetch(1)
    return dataset_5.make_one_shot_iterator().get_next()
