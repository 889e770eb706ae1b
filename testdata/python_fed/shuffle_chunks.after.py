"""A training script that shuffles examples kept in numpy arrays: a Python thread pushes them in
chunks into a RandomShuffleQueue (enqueue_many), the model takes shuffled batches from it."""

import numpy as np
import tensorflow as tf

CHUNK = 16


def load_chunks(features, ids):
    for start in range(0, len(ids), CHUNK):
        end = start + CHUNK
        yield features[start:end], ids[start:end]


def train(features, ids, batch_size, steps, log=print):
    dataset = tf.data.Dataset.from_generator(lambda: load_chunks(features, ids), output_types=(tf.float32, tf.int64), output_shapes=([None, 4], [None]))
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.prefetch(256)
    dataset = dataset.shuffle(256, seed=11)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    batch, batch_ids = dataset.make_one_shot_iterator().get_next()
    total = tf.reduce_sum(batch, axis=1)

    sess = tf.Session()
    for step in range(steps):
        log(sess.run([batch_ids, total]))
    sess.close()
