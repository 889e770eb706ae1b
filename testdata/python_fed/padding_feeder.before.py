"""A speech-style data feeder: variable-length examples made in Python, padded per batch by a
PaddingFIFOQueue that a background thread fills through placeholders."""
import threading

import numpy as np
import tensorflow as tf


class DataFeeder(object):
    """Loads (frames, id) examples in Python and feeds them to the model in padded batches."""

    def __init__(self, lengths, batch_size, num_features=3):
        self.lengths = lengths
        self.num_features = num_features
        self.threads = []
        # One example at a time: the queue pads each batch to its longest example.
        self.frames = tf.placeholder(tf.float32, [None, num_features], name='frames')
        self.example_id = tf.placeholder(tf.int64, [], name='example_id')
        self.queue = tf.PaddingFIFOQueue(32, [tf.float32, tf.int64], shapes=[[None, num_features], []])
        self.enqueue = self.queue.enqueue([self.frames, self.example_id])
        self.inputs, self.ids = self.queue.dequeue_many(batch_size)

    def _load(self, index):
        """The example `index`: `lengths[index]` frames whose values encode the id and the frame."""
        length = self.lengths[index]
        frames = np.arange(length * self.num_features, dtype=np.float32).reshape(length, self.num_features)
        return frames + 1000.0 * index, index

    def thread_main(self, sess):
        for index in range(len(self.lengths)):
            frames, example_id = self._load(index)
            sess.run(self.enqueue, feed_dict={self.example_id: example_id, self.frames: frames})

    def start_threads(self, sess):
        thread = threading.Thread(target=self.thread_main, args=(sess,))
        thread.daemon = True  # the process may exit while it waits on a full queue
        thread.start()
        self.threads.append(thread)
        return self.threads
