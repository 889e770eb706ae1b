"""A file queue made by one function and handed to another of the module, which reads it (through
a reader helper, or with a reader of its own) and batches: the producer moves into the function
that reads (it takes what the producer was made from), and the chain there is migrated. A queue
that its maker also uses, or handed to a function called twice, stays with the reason."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def _read_example(serialized):
    class Example(object):
        pass

    example = Example()
    features = tf.parse_single_example(serialized, FEATURES)
    example.id = features['id']
    example.x = features['x'] * 2.0
    return example


def example_batches(filenames, batch_size):
    """Batches of the examples the queue's files hold.

    Args:
      filenames: what the queue `filename_queue` was made from.
      batch_size: examples in a batch.
    """
    def parse_record(serialized):
        example = _read_example(serialized)
        return example.id, example.x

    threads = 2

    dataset = tf.data.Dataset.from_tensor_slices(filenames)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=threads)
    dataset = dataset.repeat(2)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    ids, xs = dataset.make_one_shot_iterator().get_next()
    return ids, xs * 0.5


def train_inputs(files, batch_size):
    # The file names in order, twice.
    return example_batches(files, batch_size)


def shuffled_ids(batch_size, filenames):
    def parse_record_2(serialized):
        example_id = tf.parse_single_example(serialized, FEATURES)['id']
        return example_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(filenames)
    dataset_2 = dataset_2.shuffle(tf.size(filenames, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()


def id_inputs(files, batch_size):
    """The queue handed by keyword."""
    return shuffled_ids(filenames=files, batch_size=batch_size)


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
