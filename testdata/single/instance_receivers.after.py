"""Reading methods called on an object outside its class: the object is a local bound once from
a property that returns an attribute bound once in `__init__` (`Inputs().records`), or a
module-level instance. qmigrate names the object's class, so the method is linked as a call on
`self` would be: migrated to take the record, the call moved into the map function (the object
is the same there). An object whose class cannot be proven (its attribute bound twice) stays,
with the attribute named."""
import tensorflow as tf


class Records(object):
    def __init__(self, width):
        self.width = width

    def parse_example(self, serialized):
        """One example.

        Args:
          serialized: one record read from the files, a scalar string Tensor.
        """
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'][:self.width], features['id']


class Inputs(object):
    """Owns the parser of the records."""

    def __init__(self):
        self.__records = Records(2)

    @property
    def records(self):
        """The parser."""
        return self.__records


def train_batches(files, batch_size):
    decoder = Inputs().records
    def parse_record(serialized):
        x, example_id = decoder.parse_example(serialized)
        return x, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20, 2))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


class Loader(object):
    def __init__(self, scale):
        self.scale = scale

    def load_example(self, serialized):
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'] * self.scale, features['id']


EVALUATION = Loader(10.0)


def eval_batches(files, batch_size):
    def parse_record_2(serialized):
        x, example_id = EVALUATION.load_example(serialized)
        return x, example_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


class Cached(object):
    def __init__(self, width):
        self.width = width

    def parse_cached(self, filename_queue):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']


class Swappable(object):
    def __init__(self):
        self._parser = Cached(1)

    def swap(self):
        self._parser = Cached(2)

    @property
    def parser(self):
        return self._parser


def swapped_batches(files, batch_size):
    parser = Swappable().parser
    filename_queue = tf.train.string_input_producer(files)
    example_id = parser.parse_cached(filename_queue)
    return tf.train.batch([example_id], batch_size=batch_size)
