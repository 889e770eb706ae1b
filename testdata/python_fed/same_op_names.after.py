"""Two functions, each with a queue fed from its own thread, whose enqueue ops share a local name:
each run belongs to the function that binds it, so both migrate."""

import tensorflow as tf


def image_input(sess, images):

    def feed_images():
        for image in images:
            yield image

    dataset = tf.data.Dataset.from_generator(feed_images, output_types=tf.float32, output_shapes=[5])
    dataset = dataset.prefetch(8)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(4))
    batch = dataset.make_one_shot_iterator().get_next()

    return batch


def label_input(sess, labels):

    def feed_labels():
        for value in labels:
            yield value

    dataset = tf.data.Dataset.from_generator(feed_labels, output_types=tf.int32, output_shapes=[])
    dataset = dataset.prefetch(8)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(4))
    batch = dataset.make_one_shot_iterator().get_next()

    return batch
