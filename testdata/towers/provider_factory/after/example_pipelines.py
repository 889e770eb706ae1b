"""Input pipelines: each describes its files and makes a slim data provider for them."""
import tensorflow as tf

slim = tf.contrib.slim


class ExamplePipeline(object):
    """Shuffled or not, for some epochs or forever: what every pipeline reads with."""

    def __init__(self, params):
        self.params = {'shuffle': True, 'num_epochs': None}
        self.params.update(params)

    def make_data_provider(self, **kwargs):
        raise NotImplementedError('a pipeline says how its records are read')


class RecordPipeline(ExamplePipeline):
    """TFRecord files of 8x8 RGB images, their labels and ids."""

    def make_data_provider(self, **kwargs):
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
        dataset = slim.dataset.Dataset(
            data_sources=self.params['files'],
            reader=tf.TFRecordReader,
            decoder=decoder,
            num_samples=None,
            items_to_descriptions={})
        return slim.dataset_data_provider.DatasetDataProvider(
            dataset=dataset,
            shuffle=self.params['shuffle'],
            num_epochs=self.params['num_epochs'],
            common_queue_capacity=64,
            common_queue_min=16,
            **kwargs)

    def make_data_provider_records(self):
        """The records make_data_provider() reads, shuffled and repeated as its provider read them (a tf.data
        dataset in the place of its queues), and the slim Dataset whose decoder decodes them."""
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
        dataset = slim.dataset.Dataset(
            data_sources=self.params['files'],
            reader=tf.TFRecordReader,
            decoder=decoder,
            num_samples=None,
            items_to_descriptions={})
        shuffle_2 = self.params['shuffle']
        data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
        records = tf.data.Dataset.from_tensor_slices(data_files)
        if shuffle_2:
            records = records.shuffle(tf.size(data_files, out_type=tf.int64))
        records = records.flat_map(tf.data.TFRecordDataset)
        if shuffle_2:
            records = records.apply(tf.contrib.data.shuffle_and_repeat(16, self.params['num_epochs']))
        else:
            records = records.repeat(self.params['num_epochs'])
        return records, dataset
