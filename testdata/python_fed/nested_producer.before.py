"""An input function that feeds chunks of numpy arrays from a thread it defines inside itself,
after building the queue; a coordinator tells the thread when to stop."""
import threading

import numpy as np
import tensorflow as tf


def build_input(sess, coord, images, labels, chunk=32, capacity=512):
    """Single (image, label) examples, fed from `images` and `labels` in chunks, forever."""
    height, width = images.shape[1:3]
    image_chunk = tf.placeholder(tf.float32, shape=[chunk, height, width])
    label_chunk = tf.placeholder(tf.int64, shape=[chunk])

    queue = tf.FIFOQueue(capacity, [tf.float32, tf.int64], shapes=[[height, width], []])
    enqueue_op = queue.enqueue_many([image_chunk, label_chunk])
    image, label = queue.dequeue()
    image = tf.image.per_image_standardization(tf.expand_dims(image, -1))

    def feed(coordinator):
        start = 0
        while not coordinator.should_stop():
            end = start + chunk
            if end > len(images):
                start, end = 0, chunk
            sess.run(enqueue_op, feed_dict={image_chunk: images[start:end], label_chunk: labels[start:end]})
            start = end

    feeder = threading.Thread(target=feed, args=(coord,))
    feeder.daemon = True
    feeder.start()
    return image, label
