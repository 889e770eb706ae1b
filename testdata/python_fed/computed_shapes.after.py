"""Examples kept in numpy arrays, pushed in chunks by a thread into a queue whose element shapes are
read from the arrays themselves; the model takes batches of 8."""

import tensorflow as tf

CHUNK = 16


def push_chunks(values, ids):
    for start in range(0, len(ids), CHUNK):
        yield values[start:start + CHUNK], ids[start:start + CHUNK]


def build_input(sess, values, ids, batch_size):
    dataset = tf.data.Dataset.from_generator(lambda: push_chunks(values, ids), output_types=(tf.float32, tf.int64), output_shapes=(tf.TensorShape([None]).concatenate(values.shape[1:]), tf.TensorShape([None]).concatenate(ids.shape[1:])))
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.prefetch(64)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    batch, batch_ids = dataset.make_one_shot_iterator().get_next()

    return batch, batch_ids
