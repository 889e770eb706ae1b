"""A chain made before an if/else whose arm makes a second chain, the records of either arm batched
by one call after the `if`: the head and the tail go into each arm, which then builds its own
dataset (Dataset.zip of the two chains where the arm makes the second one)."""
import tensorflow as tf


def read_id(queue, offset=0):
    """The id of the example read, plus `offset`."""
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    features = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
    return features['id'] + offset


def paired_rows(files, extra_files, batch_size):
    """Rows naming one example of each file list (both ways round), or of the first list alone."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    first = read_id(queue)

    if len(extra_files) != 0:
        extra_queue = tf.train.string_input_producer(extra_files, num_epochs=2, shuffle=False)
        second = read_id(extra_queue, offset=1000)
        rows = tf.stack([tf.stack([first, second]), tf.stack([second, first])])
    else:
        # A batch of one row, as the other arm gives a batch of two.
        rows = tf.expand_dims(tf.stack([first, first]), 0)

    # The rows of either arm, one at a time.
    rows_batch = tf.train.batch([rows], batch_size=batch_size, num_threads=1, enqueue_many=True,
                                allow_smaller_final_batch=True)
    return rows_batch


def optional_lines(files, csv_files, batch_size):
    """Without an `else`, the path that makes no second chain would batch the records of the first
    alone after an `if` that did nothing: the first chain and the batching are left as they are."""
    queue = tf.train.string_input_producer(files)
    _, text = tf.TFRecordReader().read(queue)
    if csv_files:
        lines = tf.train.string_input_producer(csv_files)
        _, line = tf.TextLineReader().read(lines)
        text = tf.string_join([text, line])
    return tf.train.batch([text], batch_size)


def chosen_lines(files, csv_files, batch_size, wanted):
    """A test that calls a function of the program would run before the first chain is made, no
    longer after it: the first chain and the batching are left as they are."""
    queue = tf.train.string_input_producer(files)
    _, text = tf.TFRecordReader().read(queue)
    if wanted(csv_files):
        lines = tf.train.string_input_producer(csv_files)
        _, line = tf.TextLineReader().read(lines)
        text = tf.string_join([text, line])
    else:
        text = tf.identity(text)
    return tf.train.batch([text], batch_size)


WITH_LINES = True


def flagged_lines(files, csv_files, batch_size):
    """A test that reads a module's name, which the first chain's code could change before the
    `if` (as written) but not after it: the first chain and the batching are left as they are."""
    queue = tf.train.string_input_producer(files)
    _, text = tf.TFRecordReader().read(queue)
    if WITH_LINES:
        lines = tf.train.string_input_producer(csv_files)
        _, line = tf.TextLineReader().read(lines)
        text = tf.string_join([text, line])
    else:
        text = tf.identity(text)
    return tf.train.batch([text], batch_size)


class PairLoader(object):
    """A reading method, called for each chain with its own flag."""

    def __init__(self, batch_size):
        self.batch_size = batch_size

    def read_example(self, queue, shifted=False):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(queue)
        features = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
        if shifted:
            return features['x'], features['x'] + 1.0
        return features['x']

    def load(self, files, extra_files):
        """The names the first read binds are bound again in the arms, stacked with the second
        chain's record or expanded alone: in the map function they are the first read's again."""
        queue = tf.train.string_input_producer(files, name="first_files")
        x, moved = self.read_example(queue, shifted=True)
        if len(extra_files) != 0:
            extra_queue = tf.train.string_input_producer(extra_files, name="extra_files")
            extra_x = self.read_example(extra_queue)
            x = tf.stack([x, extra_x])
            moved = tf.stack([moved, tf.zeros_like(extra_x)])
        else:
            x = tf.expand_dims(x, 0)
            moved = tf.expand_dims(moved, 0)
        x_batch, moved_batch = tf.train.shuffle_batch([x, moved], batch_size=self.batch_size, capacity=100,
                                                      min_after_dequeue=20, enqueue_many=True)
        return x_batch, moved_batch
