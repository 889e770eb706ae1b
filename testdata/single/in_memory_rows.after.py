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
    dataset = tf.data.Dataset.from_tensor_slices((tf.constant(features), tf.constant(ids)))
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(2 * batch_size, seed=seed))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def ordered_rows(count, batch_size):
    # The same names for the arrays and their batches.
    values = np.linspace(0.0, 1.0, count)
    ids = tf.constant(np.arange(count))
    dataset_2 = tf.data.Dataset.from_tensor_slices((values, ids))
    dataset_2 = dataset_2.repeat()
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    values, ids = dataset_2.make_one_shot_iterator().get_next()
    return values, ids


def table_rows(batch_size):
    dataset_3 = tf.data.Dataset.from_tensor_slices(TABLE)
    dataset_3 = dataset_3.repeat()
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    rows = dataset_3.make_one_shot_iterator().get_next()
    return rows


def given_rows(rows, batch_size):
    # A parameter: what the caller passes is not known to be an array made once.
    return tf.train.batch([rows], batch_size=batch_size, enqueue_many=True)


def rebound_rows(count, batch_size, shift=False):
    ids = np.arange(count)
    if shift:
        ids = tf.constant(np.arange(count)) + count  # a tensor, not an array in memory
    return tf.train.batch([ids], batch_size=batch_size, enqueue_many=True)
