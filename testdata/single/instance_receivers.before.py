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

    def parse_example(self, filename_queue):
        """One example.

        Args:
          filename_queue: the queue of TFRecord file names.
        """
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
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
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    x, example_id = decoder.parse_example(filename_queue)
    return tf.train.shuffle_batch([x, example_id], batch_size=batch_size, capacity=60, min_after_dequeue=20,
                                  num_threads=2)


class Loader(object):
    def __init__(self, scale):
        self.scale = scale

    def load_example(self, files, epochs):
        filename_queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=False)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'] * self.scale, features['id']


EVALUATION = Loader(10.0)


def eval_batches(files, batch_size):
    x, example_id = EVALUATION.load_example(files, 1)
    return tf.train.batch([x, example_id], batch_size=batch_size, allow_smaller_final_batch=True)


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
