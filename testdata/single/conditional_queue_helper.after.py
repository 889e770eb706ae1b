"""A queue helper called only when a flag is set: `if shuffle:` checks its arguments, works out
the threads and buffer in Python, passes the records through a helper's shuffling queue, and
takes threads away from the batching; the records are logged before they are batched."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def _mix(tensors, capacity, min_after_dequeue, num_threads):
    """Gives back the records in `tensors` in a random order, each record's tensors together."""
    queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes=[t.dtype for t in tensors])
    enqueue_op = queue.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op] * num_threads))
    mixed = queue.dequeue()
    for i in range(len(tensors)):
        mixed[i].set_shape(tensors[i].shape)
    return mixed


def _buffer_for(batch_size):
    return 3 * batch_size


def padded_records(files, batch_size, threads=4, shuffle=False):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        tensors = [parsed['x'] + 1.0, parsed['id']]
        tensors = list(tensors)

        tf.logging.info(tensors)
        return tuple(tensors)

    if shuffle:
        if threads < 2:
            raise ValueError('shuffling takes at least 2 threads')
        mixing_threads = threads // 2
        buffer_size = _buffer_for(batch_size)
        threads -= mixing_threads

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=threads)
    if shuffle:
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(buffer_size or 2 * buffer_size, 1))
    else:
        dataset = dataset.repeat(1)
    dataset = dataset.padded_batch(batch_size, dataset.output_shapes)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def tested_by_attribute(files, batch_size, options):
    """Left alone: the test reads an attribute, which could change before the dataset tests it again."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    tensors = [parsed['x'], parsed['id']]
    if options.shuffle:
        tensors = _mix(tensors, capacity=4 * batch_size, min_after_dequeue=2 * batch_size, num_threads=1)
    return tf.train.batch(tensors, batch_size=batch_size)


def test_rebound(files, batch_size, shuffle=True):
    """Left alone: the test's name is reassigned after the `if`, before the dataset tests it again."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    tensors = [parsed['x'], parsed['id']]
    if shuffle:
        tensors = _mix(tensors, capacity=4 * batch_size, min_after_dequeue=2 * batch_size, num_threads=1)
    shuffle = False
    return tf.train.batch(tensors, batch_size=batch_size)


def record_used_in_test_body(files, batch_size, shuffle=True):
    """Left alone: the `if` reads a per-record tensor beside the helper's call."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    tensors = [parsed['x'], parsed['id']]
    if shuffle:
        tf.summary.scalar('first_id', parsed['id'])
        tensors = _mix(tensors, capacity=4 * batch_size, min_after_dequeue=2 * batch_size, num_threads=1)
    return tf.train.batch(tensors, batch_size=batch_size)


def scale_rebound_in_test(files, batch_size, scale=1.0, shuffle=True):
    """Left alone: the `if` rebinds `scale`, which the per-record code before it read."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    tensors = [parsed['x'] * scale, parsed['id']]
    if shuffle:
        scale = 2.0
        tensors = _mix(tensors, capacity=4 * batch_size, min_after_dequeue=2 * batch_size, num_threads=1)
    return tf.train.batch(tensors, batch_size=batch_size)
