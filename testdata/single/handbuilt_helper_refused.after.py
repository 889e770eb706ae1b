"""Queue helpers that stay as they are, each for its own reason: one also has a caller fed from
placeholders (kept for it), one reports its queue's size, one summarises what it dequeues, one's
records are returned one at a time, one is given a capacity that changes after the call, one is
called in an if arm, and one is decorated."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def _mix(tensors, capacity, min_after_dequeue, num_threads=1):
    queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes=[t.dtype for t in tensors],
                                  shapes=[t.shape for t in tensors])
    enqueue_op = queue.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op] * num_threads))
    return queue.dequeue()


def mixed(files, batch_size):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'], parsed['id']
        return x, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(50, 1))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def fed(batch_size):
    """Generated examples fed through placeholders: this call of _mix keeps it."""
    x_in = tf.placeholder(tf.float32, [3])
    id_in = tf.placeholder(tf.int64, [])
    x, example_id = _mix([x_in, id_in], 100, 50)
    return tf.train.batch([x, example_id], batch_size), (x_in, id_in)


def _sized(tensors, capacity):
    queue = tf.RandomShuffleQueue(capacity, capacity // 2, dtypes=[t.dtype for t in tensors])
    queue.size(name='example_queue_size')  # read by a monitor through its name
    enqueue_op = queue.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op]))
    return queue.dequeue()


def sized(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = _sized([parsed['x'], parsed['id']], 100)
    return tf.train.batch([x, example_id], batch_size)


def _summarised(tensors):
    queue = tf.FIFOQueue(100, dtypes=[t.dtype for t in tensors])
    enqueue_op = queue.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op]))
    out = queue.dequeue()
    tf.summary.histogram('first', out[0])
    return out


def summarised(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = _summarised([parsed['x'], parsed['id']])
    return tf.train.batch([x, example_id], batch_size)


def one_at_a_time(files):
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return _mix([parsed['x'], parsed['id']], 100, 50)


def _shuffled(tensors, capacity):
    queue = tf.RandomShuffleQueue(capacity, capacity // 2, dtypes=[t.dtype for t in tensors])
    enqueue_op = queue.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op]))
    return queue.dequeue()


def capacity_changed(files, batch_size, capacity=100):
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = _shuffled([parsed['x'], parsed['id']], capacity)
    capacity = 2 * capacity
    return tf.train.batch([x, example_id], batch_size, capacity=capacity)


def maybe_mixed(files, batch_size, shuffle=False):
    """The queue helper is called under a flag, alone: the flag is tested again where the dataset is built."""
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        tensors = [parsed['x'], parsed['id']]
        tensors = list(tensors)
        return tuple(tensors)

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    if shuffle:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(50, 1))
    else:
        dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def _logged(fn):
    def wrapper(*args):
        tf.logging.info('%s%r', fn.__name__, args)
        return fn(*args)
    return wrapper


@_logged
def _decorated(tensors, capacity):
    queue = tf.FIFOQueue(capacity, dtypes=[t.dtype for t in tensors])
    enqueue_op = queue.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op]))
    return queue.dequeue()


def decorated(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = _decorated([parsed['x'], parsed['id']], 100)
    return tf.train.batch([x, example_id], batch_size)
