"""A file queue made by one function and handed to another of the module, which reads it (through
a reader helper, or with a reader of its own) and batches: the producer moves into the function
that reads (it takes what the producer was made from), and the chain there is migrated. A queue
that its maker also uses, or handed to a function called twice, stays with the reason."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def _read_example(filename_queue):
    class Example(object):
        pass

    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example = Example()
    features = tf.parse_single_example(serialized, FEATURES)
    example.id = features['id']
    example.x = features['x'] * 2.0
    return example


def example_batches(filename_queue, batch_size):
    """Batches of the examples the queue's files hold.

    Args:
      filename_queue: the file names to read.
      batch_size: examples in a batch.
    """
    example = _read_example(filename_queue)
    threads = 2
    ids, xs = tf.train.batch([example.id, example.x], batch_size=batch_size, num_threads=threads)
    return ids, xs * 0.5


def train_inputs(files, batch_size):
    # The file names in order, twice.
    filename_queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    return example_batches(filename_queue, batch_size)


def shuffled_ids(batch_size, queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    example_id = tf.parse_single_example(serialized, FEATURES)['id']
    return tf.train.shuffle_batch([example_id], batch_size, capacity=50, min_after_dequeue=10)


def id_inputs(files, batch_size):
    """The queue handed by keyword."""
    queue = tf.train.string_input_producer(files, num_epochs=1)
    return shuffled_ids(queue=queue, batch_size=batch_size)


def _serialized(queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    return tf.train.batch([serialized], 4)


def train_and_test(files):
    """Left as it is: `_serialized` is called twice, so it cannot take file names for one queue."""
    train = _serialized(tf.train.string_input_producer(files))
    queue = tf.train.string_input_producer(files, num_epochs=1)
    return train, _serialized(queue)


def _sizes(queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    return tf.train.batch([serialized], 4)


def batches_and_size(files):
    """Left as it is: the queue is also read here, for its size."""
    queue = tf.train.string_input_producer(files)
    return _sizes(queue), queue.size()
