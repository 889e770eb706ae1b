"""A queue of work items that can report its size without dequeuing: not model input."""
import tensorflow as tf
from tensorflow import RandomShuffleQueue

READER_CLASSES = {'tfrecord': tf.TFRecordReader, 'text': tf.TextLineReader}


class CountingQueue(tf.FIFOQueue):
    """A FIFOQueue of strings that counts what went in."""

    def __init__(self, capacity):
        super(CountingQueue, self).__init__(capacity, [tf.string], shapes=[[]])
        self.added = tf.Variable(0, trainable=False, name='added')

    def enqueue(self, item, name=None):
        with tf.control_dependencies([self.added.assign_add(1)]):
            return super(CountingQueue, self).enqueue(item, name=name)


def is_shuffling(queue):
    return isinstance(queue, RandomShuffleQueue)
