"""A 2017-style trainer with hand-built queues: one feeds the model from Python threads, one is a
work list for checkpoint uploads, a batch_join reads with several readers, and a Supervisor
starts every runner. Only the loop of readers is rewritten; each queue is reported for what it is."""
import threading

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import data_flow_ops

FLAGS = tf.app.flags.FLAGS


def feeder_queue(batch_size):
    """Examples generated in Python, enqueued by a thread through placeholders."""
    image_in = tf.placeholder(tf.float32, [32, 32, 3])
    label_in = tf.placeholder(tf.int32, [])
    queue = data_flow_ops.RandomShuffleQueue(capacity=1000, min_after_dequeue=200,
                                             dtypes=[tf.float32, tf.int32], shapes=[[32, 32, 3], []])
    enqueue = queue.enqueue([image_in, label_in])
    images, labels = queue.dequeue_many(batch_size)
    return images, labels, (image_in, label_in, enqueue)


def feed_forever(sess, feeds, generate):
    image_in, label_in, enqueue = feeds
    for image, label in generate():
        sess.run(enqueue, feed_dict={image_in: image, label_in: label})


def multi_reader_batch(filenames, batch_size, readers=4):
    filename_queue = tf.train.string_input_producer(filenames)
    examples = []
    for _ in range(readers):
        _, record = tf.TFRecordReader().read(filename_queue)
        examples.append([tf.parse_single_example(record, {'x': tf.FixedLenFeature([8], tf.float32)})['x']])
    return tf.train.shuffle_batch_join(examples, batch_size=batch_size, capacity=4 * batch_size,
                                       min_after_dequeue=batch_size)


def upload_worker(sess, upload):
    """Checkpoint paths go to an uploader thread: a work list, not model input."""
    paths = tf.FIFOQueue(32, tf.string, shapes=[])
    path_in = tf.placeholder(tf.string, [])
    push = paths.enqueue(path_in)
    pop = paths.dequeue()

    def loop():
        while True:
            upload(sess.run(pop))
    threading.Thread(target=loop, daemon=True).start()
    return lambda path: sess.run(push, feed_dict={path_in: path})


def train(model, generate):
    images, labels, feeds = feeder_queue(FLAGS.batch_size)
    loss = model(images, labels)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    supervisor = tf.train.Supervisor(logdir=FLAGS.train_dir)
    with supervisor.managed_session() as sess:
        threading.Thread(target=feed_forever, args=(sess, feeds, generate), daemon=True).start()
        while not supervisor.should_stop():
            sess.run(train_op)
    return np.zeros(1)
