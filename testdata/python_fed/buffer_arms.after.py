"""A queue chosen by a mode flag, nothing else in the arms of the if: a FIFOQueue of a size of its
own in each mode, and a RandomShuffleQueue that mixes everything it holds."""

import tensorflow as tf


def build_input(sess, rows, batch_size, mode):

    def feed():
        for chunk_values, chunk_ids in rows:
            yield chunk_values, chunk_ids

    dataset = tf.data.Dataset.from_generator(feed, output_types=(tf.float32, tf.int64), output_shapes=([None, 2], [None]))
    dataset = dataset.apply(tf.contrib.data.unbatch())
    if mode == "eval":
        dataset = dataset.prefetch(64)
    elif mode == "train":
        dataset = dataset.prefetch(64)
        dataset = dataset.shuffle(64)
    else:
        dataset = dataset.prefetch(16)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    return dataset.make_one_shot_iterator().get_next()
