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
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=2, shuffle=split_name == 'train', num_epochs=num_epochs)
    pixels, shifted_id, example_id = provider.get(['pixels', 'shifted_id', 'id'])
    pixels = tf.image.flip_left_right(pixels)
    return tf.train.batch([pixels, shifted_id, example_id], batch_size, allow_smaller_final_batch=True)


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
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [pixels] = provider.get(['pixels'])
    noise = None
    if noisy:
        noise = tf.random_uniform(tf.shape(pixels), maxval=2, dtype=tf.int32)
    if noise is not None:
        pixels = pixels + noise
    return tf.train.batch([pixels], batch_size)
