"""Two functions, each with a queue fed from its own thread, whose enqueue ops share a local name:
each run belongs to the function that binds it, so both migrate."""
import threading

import tensorflow as tf


def image_input(sess, images):
    pixels = tf.placeholder(tf.float32, [5])
    queue = tf.FIFOQueue(8, [tf.float32], shapes=[[5]])
    enqueue_op = queue.enqueue([pixels])
    batch = queue.dequeue_many(4)

    def feed_images(sess):
        for image in images:
            sess.run(enqueue_op, feed_dict={pixels: image})

    threading.Thread(target=feed_images, args=(sess,)).start()
    return batch


def label_input(sess, labels):
    label = tf.placeholder(tf.int32, [])
    queue = tf.FIFOQueue(8, [tf.int32], shapes=[[]])
    enqueue_op = queue.enqueue([label])
    batch = queue.dequeue_many(4)

    def feed_labels(sess):
        for value in labels:
            sess.run(enqueue_op, feed_dict={label: value})

    threading.Thread(target=feed_labels, args=(sess,)).start()
    return batch
