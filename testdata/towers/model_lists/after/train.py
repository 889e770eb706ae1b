"""Makes the per-set batches, one per tower, and hands them to the model."""
import collections

import tensorflow as tf

import model
import shards

Config = collections.namedtuple('Config', ['num_towers'])


def train(files, num_towers, steps):
    features, ids = shards.batches_per_set(files, 8, num_sets=num_towers)
    net = model.TowerModel(Config(num_towers=num_towers), features, ids)
    total = net.build()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(total)
