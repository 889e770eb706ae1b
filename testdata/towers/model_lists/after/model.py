"""A model whose towers each take their element of the per-set lists it is given."""
import tensorflow as tf


class TowerModel(object):
    def __init__(self, config, features, ids):
        self._config = config
        self._features = features
        self._ids = ids
        self._losses = []

    def build(self):
        for k in range(self._config.num_towers):
            with tf.device('/gpu:%d' % k), tf.variable_scope('model', reuse=k > 0):
                weights = tf.get_variable('w', [3], initializer=tf.ones_initializer())
                loss = tf.reduce_sum(self._features[k] * weights) + tf.to_float(tf.reduce_sum(self._ids[k]))
                self._losses.append(loss)
        return tf.add_n(self._losses)
