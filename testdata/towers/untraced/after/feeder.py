"""Examples loaded in Python and pushed into a queue by a thread."""
import threading

import numpy as np
import tensorflow as tf


class Feeder(object):
    def __init__(self, sess, paths, batch_size):
        self.sess = sess
        self.paths = paths
        self.batch_size = batch_size
        self.image = tf.placeholder(tf.float32, [32, 32, 3])
        self.queue = tf.FIFOQueue(16 * batch_size, [tf.float32], shapes=[[32, 32, 3]])
        self.enqueue = self.queue.enqueue([self.image])

    def run(self):
        for path in self.paths:
            self.sess.run(self.enqueue, feed_dict={self.image: np.load(path)})

    def start(self):
        thread = threading.Thread(target=self.run)
        thread.daemon = True
        thread.start()

    def build_loss(self, gpu_id):
        images = self.queue.dequeue_many(self.batch_size)
        return tf.reduce_mean(images)
