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

    def scaled_example(self, files, epochs):
        """One example, its features scaled by the object's factor."""
        filename_queue = tf.train.string_input_producer(files, num_epochs=epochs)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        return features['x'] * self.scale, features['id']

    @staticmethod
    def plain_example(path):
        """One example of one file, one pass, in order."""
        filename_queue = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
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
    x, example_id = store.files.scaled_example(files, 2)
    return tf.train.shuffle_batch([x, example_id], batch_size=batch_size, capacity=60, min_after_dequeue=20,
                                  num_threads=2)


def per_file_batches(files, batch_size):
    store = Store()
    xs, ids = [], []
    for path in files:
        x, example_id = store.files.plain_example(path)
        x_batch, id_batch = tf.train.batch([x, example_id], batch_size=batch_size, allow_smaller_final_batch=True)
        xs.append(x_batch)
        ids.append(id_batch)
    return tf.concat(xs, 0), tf.concat(ids, 0)
