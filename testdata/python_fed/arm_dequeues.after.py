"""A queue fed from a nested thread function through a list of placeholders, dequeued in one of two
ways chosen by a flag: whole batches only, or the last partial one too. Each row also carries a
label the queue does not take: zip() feeds only the placeholders there are."""

import tensorflow as tf


def build_input(sess, rows, batch_size, keep_last):

    def feed():
        for row in rows:
            yield tuple(row)[:2]

    if keep_last:
        dataset = tf.data.Dataset.from_generator(feed, output_types=(tf.float32, tf.int64), output_shapes=([4], []))
        dataset = dataset.prefetch(32)
        dataset = dataset.batch(batch_size)
        features, ids = dataset.make_one_shot_iterator().get_next()
    else:
        dataset = tf.data.Dataset.from_generator(feed, output_types=(tf.float32, tf.int64), output_shapes=([4], []))
        dataset = dataset.prefetch(32)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        features, ids = dataset.make_one_shot_iterator().get_next()

    return features, ids
