"""An input function that feeds chunks of numpy arrays from a thread it defines inside itself,
after building the queue; a coordinator tells the thread when to stop."""

import numpy as np
import tensorflow as tf


def build_input(sess, coord, images, labels, chunk=32, capacity=512):
    """Single (image, label) examples, fed from `images` and `labels` in chunks, forever."""
    height, width = images.shape[1:3]

    def feed():
        start = 0
        while True:
            end = start + chunk
            if end > len(images):
                start, end = 0, chunk
            yield images[start:end], labels[start:end]
            start = end

    dataset = tf.data.Dataset.from_generator(feed, output_types=(tf.float32, tf.int64), output_shapes=([None, height, width], [None]))
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.prefetch(capacity)
    image, label = dataset.make_one_shot_iterator().get_next()
    image = tf.image.per_image_standardization(tf.expand_dims(image, -1))

    return image, label
