"""Trainers that preload batches made in Python into a queue from a thread: the function that
builds the queue returns its enqueue op, the training function hands it to a function that starts
the thread, and stops and joins that thread at the end."""

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


def build_inputs(shapes, source):
    inputs = {key: tf.placeholder(tf.float32, shape=shape) for (key, shape) in shapes.items()}
    keys = inputs.keys()
    components = list(inputs.values())

    def feed_loop():
        while True:
            arrays = source.next_batch()
            feed = {tensor: arrays[key] for (key, tensor) in inputs.items()}
            yield tuple(feed[component] for component in components)

    dataset = tf.data.Dataset.from_generator(feed_loop, output_types=tuple([tf.float32] * len(shapes)))
    dataset = dataset.prefetch(8)
    tensors = dataset.make_one_shot_iterator().get_next()
    # One component dequeued alone was a tensor, several a list.
    tensors = tensors[0] if len(tensors) == 1 else list(tensors)

    batch = {}
    for index, key in enumerate(keys):
        batch[key] = tensors[index]
        batch[key].set_shape(shapes[key])
    return batch, inputs


def train(steps):
    source = Batches(10)
    batch, inputs = build_inputs(batch_shapes(), source=source)
    total = tf.reduce_sum(batch['images'])
    seen = []
    with tf.Session() as sess:
        for _ in range(steps):
            ids, images, _ = sess.run([batch['ids'], batch['images'], total])
            seen.append((ids, images))
    return seen


# Single examples mixed by a shuffling queue, batched by its dequeue; the thread runs for ever.
def shuffled_examples(batch_size, seed, rows):
    example = tf.placeholder(tf.float32, shape=[3])
    example_id = tf.placeholder(tf.int32, shape=[])

    def push_examples():
        while True:
            for index, row in enumerate(rows):
                yield row, index

    dataset = tf.data.Dataset.from_generator(push_examples, output_types=(tf.float32, tf.int32), output_shapes=([3], []))
    dataset = dataset.prefetch(64)
    dataset = dataset.shuffle(16, seed=seed)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dequeued = list(dataset.make_one_shot_iterator().get_next())
    return dequeued, example, example_id


def shuffled_training(steps, batch_size=8, seed=3):
    rows = np.arange(120, dtype=np.float32).reshape(40, 3)
    batches, example, example_id = shuffled_examples(batch_size, seed, rows=rows)
    examples, ids = batches
    session = tf.Session()
    return [session.run([examples, ids]) for _ in range(steps)]
