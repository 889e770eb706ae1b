"""Loops of readers whose reader is made by a function or method that only returns a new
TensorFlow reader: the files are read with that reader class's dataset, and the maker stays for
whoever else calls it. A maker called on an object whose class is not proven stays, with the
reason, here where the module's classes make different readers (when every class of the run
that defines the method makes one reader class, that proves it: tests/test_dispatched_readers.py)."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


class ExampleFiles(object):
    def __init__(self, files):
        self.files = files

    def reader(self):
        """A reader of one serialized example."""
        return tf.TFRecordReader()


class TextFiles(object):
    def reader(self):
        return tf.TextLineReader()


def make_reader():
    return tf.TFRecordReader()


def mixed_batches(files, batch_size, num_readers=2, num_threads=3):
    examples = ExampleFiles(files)
    file_queue = tf.train.string_input_producer(examples.files, num_epochs=1, capacity=8)
    pool = tf.RandomShuffleQueue(capacity=40, min_after_dequeue=10, dtypes=[tf.string])
    fills = []
    for _ in range(num_readers):
        reader = examples.reader()
        _, value = reader.read(file_queue)
        fills.append(pool.enqueue([value]))
    tf.train.add_queue_runner(tf.train.QueueRunner(pool, fills))
    serialized = pool.dequeue()
    rows = []
    for _ in range(num_threads):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        rows.append([parsed['x'], parsed['id']])
    return tf.train.batch_join(rows, batch_size=batch_size)


def joined_readers(files, batch_size):
    file_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    rows = []
    for _ in range(2):
        reader = make_reader()
        _, value = reader.read(file_queue)
        parsed = tf.parse_single_example(value, _FEATURES)
        rows.append([parsed['x'], parsed['id']])
    return tf.train.batch_join(rows, batch_size=batch_size, allow_smaller_final_batch=True)


def given_files(examples, batch_size):
    file_queue = tf.train.string_input_producer(examples.files, num_epochs=1)
    rows = []
    for _ in range(2):
        reader = examples.reader()
        _, value = reader.read(file_queue)
        rows.append([tf.parse_single_example(value, _FEATURES)['id']])
    return tf.train.batch_join(rows, batch_size=batch_size)
