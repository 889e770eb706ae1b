"""Rows of a slice producer kept on `self` only for a function nested in the method that makes
them: the attribute becomes a local of the method, the nested function takes it as a parameter,
and the chain of the method's block is migrated (the call, with the rows, moves into the map
function). A second reader of the attribute keeps it as it is."""
import tensorflow as tf


class Pairs(object):
    def __init__(self, names, scale):
        self.names = names
        self.scale = scale

    def batches(self, batch_size):
        def decode():
            index = tf.cast(self.rows[1], tf.float32) * self.scale
            return index, tf.string_join([self.rows[0], '!'])

        with tf.name_scope('pairs'):
            numbers = tf.range(len(self.names))
            self.rows = tf.train.slice_input_producer([tf.constant(self.names), numbers], num_epochs=3,
                                                      shuffle=False)
            value, name = decode()
            return tf.train.batch([value, name], batch_size=batch_size)


def pair_inputs(files, batch_size):
    return Pairs(files, 2.0).batches(batch_size)


class Watched(object):
    def batches(self, names):
        def decode():
            return tf.string_join([self.rows[0], '?'])

        self.rows = tf.train.slice_input_producer([tf.constant(names)])
        name = decode()
        return tf.train.batch([name], 4)

    def peek(self):
        return self.rows
