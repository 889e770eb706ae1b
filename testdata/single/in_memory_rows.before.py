"""In-memory arrays batched with enqueue_many=True: each run of the enqueue op puts in all their
rows again, so the batches cycle through the rows for ever (shuffled, for shuffle_batch)."""
import numpy as np
import tensorflow as tf

# A table of examples made once, at import: 60 rows of 3 features.
TABLE = np.arange(180, dtype=np.float32).reshape(60, 3)


def shuffled_rows(count, batch_size, seed=None):
    """Rows of two constants, mixed by a shuffling queue."""
    features = np.arange(count * 2, dtype=np.float32).reshape(count, 2)
    ids = np.arange(count)
    return tf.train.shuffle_batch([tf.constant(features), tf.constant(ids)], batch_size=batch_size,
                                  capacity=4 * batch_size, min_after_dequeue=2 * batch_size, seed=seed,
                                  enqueue_many=True)


def ordered_rows(count, batch_size):
    # The same names for the arrays and their batches.
    values = np.linspace(0.0, 1.0, count)
    ids = tf.constant(np.arange(count))
    values, ids = tf.train.batch([values, ids], batch_size, num_threads=2, capacity=32, enqueue_many=True)
    return values, ids


def table_rows(batch_size):
    rows = tf.train.batch([TABLE], batch_size=batch_size, enqueue_many=True)
    return rows


def given_rows(rows, batch_size):
    # A parameter: what the caller passes is not known to be an array made once.
    return tf.train.batch([rows], batch_size=batch_size, enqueue_many=True)


def rebound_rows(count, batch_size, shift=False):
    ids = np.arange(count)
    if shift:
        ids = tf.constant(np.arange(count)) + count  # a tensor, not an array in memory
    return tf.train.batch([ids], batch_size=batch_size, enqueue_many=True)
