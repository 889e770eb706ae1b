"""slim providers qmigrate leaves as they are, each with the reason."""
import tensorflow as tf

slim = tf.contrib.slim


class Upper(slim.tfexample_decoder.ItemHandler):
    """An item handler of our own: what it runs is not slim's."""

    def __init__(self, key):
        super(Upper, self).__init__([key])
        self._key = key

    def tensors_to_item(self, keys_to_tensors):
        return tf.py_func(lambda s: s.upper(), [keys_to_tensors[self._key]], tf.string)


def text_dataset(pattern):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'text': tf.FixedLenFeature([], tf.string)}, {'text': Upper('text')})
    return slim.dataset.Dataset(pattern, tf.TFRecordReader, decoder, 10, {})


def lines_dataset(pattern):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'text': tf.FixedLenFeature([], tf.string)}, {'text': slim.tfexample_decoder.Tensor('text')})
    return slim.dataset.Dataset(pattern, tf.TextLineReader, decoder, 10, {})


def given_dataset(dataset, batch_size):
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset)
    [text] = provider.get(['text'])
    return tf.train.batch([text], batch_size)


def custom_handler(pattern, batch_size):
    dataset = text_dataset(pattern)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset)
    [text] = provider.get(['text'])
    return tf.train.batch([text], batch_size)


def text_lines(pattern, batch_size):
    dataset = lines_dataset(pattern)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [text] = provider.get(['text'])
    return tf.train.batch([text], batch_size)


def with_keys(pattern, batch_size):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'text': tf.FixedLenFeature([], tf.string)}, {'text': slim.tfexample_decoder.Tensor('text')})
    dataset = slim.dataset.Dataset(pattern, tf.TFRecordReader, decoder, 10, {})
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset)
    text, key = provider.get(['text', 'record_key'])
    return tf.train.batch([text, key], batch_size)


def provider_returned(pattern):
    dataset = lines_dataset(pattern)
    return slim.dataset_data_provider.DatasetDataProvider(dataset)


def provider_kept(pattern, batch_size):
    dataset = text_dataset(pattern)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset)
    images = []
    for item in provider.list_items():
        images.append(provider.get([item])[0])
    return tf.train.batch(images, batch_size)


def options_given(pattern, batch_size, options):
    """The readers' options come from the caller: their compression cannot be seen."""
    _, serialized = slim.parallel_reader.parallel_read(pattern, tf.TFRecordReader,
                                                       reader_kwargs={'options': options})
    return tf.train.batch([serialized], batch_size)


def reader_kwargs_given(dataset_pattern, batch_size, reader_kwargs=None):
    """The readers' keyword arguments are a parameter."""
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'text': tf.FixedLenFeature([], tf.string)}, {'text': slim.tfexample_decoder.Tensor('text')})
    dataset = slim.dataset.Dataset(dataset_pattern, tf.TFRecordReader, decoder, 10, {})
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, reader_kwargs=reader_kwargs)
    [text] = provider.get(['text'])
    return tf.train.batch([text], batch_size)
