"""Record-source methods called through a chain of attributes of a name (`store.files.example(...)`):
`store` is bound once from a class, `.files` is a property returning an attribute bound once in
`__init__`, so the object is proven as for `decoder = Store().files`. Migrated, the method takes
the record, its producer and reader become the caller's dataset, and the call, chain and all,
moves into the map function (the property gives the same object there). One method is static,
one reads the object in its parsing; one caller builds a pipeline per file in a loop."""
import tensorflow as tf


class ExampleFiles(object):
    """Reads dict records."""

    def __init__(self, scale):
        self.scale = scale

    def scaled_example(self, serialized):
        """One example, its features scaled by the object's factor."""
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'] * self.scale, features['id']

    @staticmethod
    def plain_example(serialized):
        """One example of one file, one pass, in order."""
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'], features['id']


class Store(object):
    """Owns the reader of the examples."""

    def __init__(self):
        self.__files = ExampleFiles(2.0)

    @property
    def files(self):
        return self.__files


def train_batches(files, batch_size):
    store = Store()
    def parse_record(serialized):
        x, example_id = store.files.scaled_example(serialized)
        return x, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20, 2))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def per_file_batches(files, batch_size):
    store = Store()
    xs, ids = [], []
    for path in files:
        def parse_record_2(serialized):
            x, example_id = store.files.plain_example(serialized)
            return x, example_id

        dataset_2 = tf.data.Dataset.from_tensor_slices([path])
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.map(parse_record_2)
        dataset_2 = dataset_2.repeat(1)
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        x_batch, id_batch = dataset_2.make_one_shot_iterator().get_next()
        xs.append(x_batch)
        ids.append(id_batch)
    return tf.concat(xs, 0), tf.concat(ids, 0)
