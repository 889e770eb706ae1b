"""Hand-built queues in helper functions: the caller reads and parses records, a helper passes the
tensors it is given through a queue filled by queue runners and gives back what it dequeues."""
import tensorflow as tf
from tensorflow.python.ops import data_flow_ops

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def _shuffle_records(tensors, capacity, min_after_dequeue, num_threads):
    """Mixes the records in `tensors`, each record's tensors kept together."""
    queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes=[t.dtype for t in tensors])
    enqueue_op = queue.enqueue(tensors)
    runner = tf.train.QueueRunner(queue, [enqueue_op] * num_threads)
    tf.train.add_queue_runner(runner)

    mixed = queue.dequeue()
    # The queue forgets static shapes: give them back.
    for i in range(len(tensors)):
        mixed[i].set_shape(tensors[i].shape)
    return mixed


def mixed_batches(files, batch_size, reader_threads=2):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    tensors = [parsed['x'] * 2.0, parsed['id']]
    tensors = _shuffle_records(tensors, capacity=8 * batch_size, min_after_dequeue=4 * batch_size,
                               num_threads=reader_threads)
    return tf.train.batch(tensors, batch_size=batch_size)


def _stage(tensors, capacity=16):
    staging = data_flow_ops.PaddingFIFOQueue(capacity, dtypes=[tf.float32, tf.int64], shapes=[[None], []])
    put = staging.enqueue(tensors)
    tf.train.queue_runner.add_queue_runner(tf.train.queue_runner.QueueRunner(staging, [put]))
    return staging.dequeue()


def padded_batches(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    # Records of 1 to 3 values, padded in each batch to the longest.
    values = parsed['x'][:1 + parsed['id'] % 3]
    values, example_id = _stage([values, parsed['id']])
    return tf.train.batch([values, example_id], batch_size=batch_size, dynamic_pad=True,
                          allow_smaller_final_batch=True)


def _shuffled_batches(image, label, batch_size, seed=None):
    queue = tf.RandomShuffleQueue(capacity=10 * batch_size, min_after_dequeue=5 * batch_size,
                                  dtypes=[tf.float32, tf.int64], shapes=[[3], []], seed=seed)
    enqueue = queue.enqueue([image, label])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue, enqueue, enqueue]))
    return queue.dequeue_many(batch_size)


def helper_batches(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = parsed['x'], parsed['id']
    xs, ids = _shuffled_batches(x, example_id, batch_size, seed=3)
    return xs, ids


def collected_batches(files, batch_size):
    """The runner put in the QUEUE_RUNNERS collection by hand, as add_queue_runner would."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = parsed['x'], parsed['id']
    queue = tf.FIFOQueue(capacity=32, dtypes=[tf.float32, tf.int64], shapes=[[3], []])
    enqueue_op = queue.enqueue([x, example_id])
    runner = tf.train.QueueRunner(queue, [enqueue_op])
    tf.add_to_collection(tf.GraphKeys.QUEUE_RUNNERS, runner)
    return queue.dequeue_up_to(batch_size)



def _buffer(tensors):
    buffered = tf.FIFOQueue(100, dtypes=[tf.float32, tf.int64], shapes=[[3], []])
    put = buffered.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(buffered, [put]))
    return buffered.dequeue()


def chained_helpers(files, batch_size):
    """Two queue helpers one after the other: a buffering queue, then a shuffling one."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = _buffer([parsed['x'], parsed['id']])
    x, example_id = _shuffle_records([x, example_id], 6 * batch_size, 3 * batch_size, num_threads=2)
    return tf.train.batch([x, example_id], batch_size=batch_size)
