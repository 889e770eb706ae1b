"""Trainers that preload batches made in Python into a queue from a thread: the function that
builds the queue returns its enqueue op, the training function hands it to a function that starts
the thread, and stops and joins that thread at the end."""
import threading

import numpy as np
import tensorflow as tf


class Batches(object):
    """Numbered batches of 4 examples, made in Python: ids, and 2x2 images holding their id."""

    def __init__(self, count):
        self.count, self.step = count, 0

    def next_batch(self):
        ids = np.arange(4) + 4 * (self.step % self.count)
        self.step += 1
        return {'ids': ids.astype(np.float32), 'images': np.ones([4, 2, 2], np.float32) * ids[:, None, None]}


def batch_shapes():
    return {'ids': [4], 'images': [4, 2, 2]}


def build_inputs(shapes):
    inputs = {key: tf.placeholder(tf.float32, shape=shape) for (key, shape) in shapes.items()}
    keys = inputs.keys()
    components = list(inputs.values())

    queue = tf.FIFOQueue(8, [tf.float32] * len(shapes))
    enqueue_op = queue.enqueue(components)
    tensors = queue.dequeue()

    batch = {}
    for index, key in enumerate(keys):
        batch[key] = tensors[index]
        batch[key].set_shape(shapes[key])
    return batch, enqueue_op, inputs


def feed_loop(sess, enqueue_op, coord, source, inputs):
    while not coord.should_stop():
        arrays = source.next_batch()
        feed = {tensor: arrays[key] for (key, tensor) in inputs.items()}
        sess.run(enqueue_op, feed_dict=feed)


def start_feeding(sess, enqueue_op, source, inputs):
    coord = tf.train.Coordinator()
    thread = threading.Thread(target=feed_loop, args=(sess, enqueue_op, coord, source, inputs))
    thread.daemon = True
    thread.start()
    return coord, thread


def train(steps):
    source = Batches(10)
    batch, enqueue_op, inputs = build_inputs(batch_shapes())
    total = tf.reduce_sum(batch['images'])
    seen = []
    with tf.Session() as sess:
        coord, thread = start_feeding(sess, enqueue_op, source, inputs)
        try:
            for _ in range(steps):
                ids, images, _ = sess.run([batch['ids'], batch['images'], total])
                seen.append((ids, images))
        finally:
            coord.request_stop()
    coord.join([thread])
    return seen


# Single examples mixed by a shuffling queue, batched by its dequeue; the thread runs for ever.
def shuffled_examples(batch_size, seed):
    example = tf.placeholder(tf.float32, shape=[3])
    example_id = tf.placeholder(tf.int32, shape=[])
    queue = tf.RandomShuffleQueue(64, 16, [tf.float32, tf.int32], shapes=[[3], []], seed=seed)
    push = queue.enqueue([example, example_id])
    return queue.dequeue_many(batch_size), push, example, example_id


def push_examples(session, push, rows, example, example_id):
    while True:
        for index, row in enumerate(rows):
            session.run(push, feed_dict={example: row, example_id: index})


def start_pushing(session, push, rows, example, example_id):
    pusher = threading.Thread(target=push_examples, args=(session, push, rows, example, example_id))
    pusher.setDaemon(True)
    pusher.start()


def shuffled_training(steps, batch_size=8, seed=3):
    rows = np.arange(120, dtype=np.float32).reshape(40, 3)
    batches, push, example, example_id = shuffled_examples(batch_size, seed)
    examples, ids = batches
    session = tf.Session()
    start_pushing(session, push, rows, example, example_id)
    return [session.run([examples, ids]) for _ in range(steps)]
