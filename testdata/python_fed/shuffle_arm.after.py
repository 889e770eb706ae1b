"""A feeder whose queue shuffles or not, as its caller chose: a RandomShuffleQueue in one arm of an
if, a FIFOQueue in the other, and one enqueue op and one dequeue after the if serving both."""

import tensorflow as tf


class WindowFeeder(object):
    def __init__(self, windows, batch_size, shuffle, capacity=32):
        self.windows = windows
        self.shuffle = shuffle
        if self.shuffle:
            self.mixing = "shuffled"
        else:
            self.mixing = "in order"
        dataset = tf.data.Dataset.from_generator(self.push, output_types=(tf.float32, tf.int64), output_shapes=([3], []))
        dataset = dataset.prefetch(capacity)
        if self.shuffle:
            dataset = dataset.shuffle(capacity // 2 or capacity, seed=5)
        dataset = dataset.batch(batch_size)
        self.windows_out, self.ids_out = dataset.make_one_shot_iterator().get_next()

    def push(self):
        for index, window in enumerate(self.windows):
            yield window, index

    def start(self, sess):
        pass
