"""Shuffling queues of records made elsewhere (another module's reader, a Python iterator through
tf.py_func), their runners registered and started by hand: each stays, and says where its records
come from and what else holds it."""
import tensorflow as tf

from . import records

MIX_SIZE = 'mix_queue_size'


def train(files, steps):
    image, label = records.read(files)
    mix = tf.RandomShuffleQueue(capacity=32, min_after_dequeue=16, dtypes=(image.dtype, label.dtype))
    put = mix.enqueue((image, label))
    runner = tf.train.QueueRunner(mix, [put] * 4)
    tf.add_to_collection(tf.GraphKeys.QUEUE_RUNNERS, runner)
    image, label = mix.dequeue()
    loss = tf.reduce_mean(tf.to_float(image)) + tf.to_float(label)
    sess = tf.Session()
    coord = tf.train.Coordinator()
    threads = []
    for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))
    for _ in range(steps):
        sess.run(loss)
    coord.request_stop()
    coord.join(threads)


def _mixed(capacity, min_after, dtypes, values):
    mix = tf.RandomShuffleQueue(capacity, min_after, dtypes)
    # A node other code finds by its name, to watch how full the queue is.
    mix.size(name=MIX_SIZE)
    tf.train.add_queue_runner(tf.train.QueueRunner(mix, [mix.enqueue(values)]))
    return mix.dequeue()


def python_rows(source, capacity=0, min_after=0):
    row = tf.py_func(lambda _: next(source), [tf.constant(1)], [tf.int64, tf.string])
    if capacity > 0:
        row = _mixed(capacity, min_after, [tf.int64, tf.string], row)
    return row
