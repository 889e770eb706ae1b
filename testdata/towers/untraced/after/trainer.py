"""A trainer that builds one model replica per GPU; each replica gets its batch from a callback."""
import tensorflow as tf


class MultiGPUTrainer(object):
    def __init__(self, build_loss, optimizer, num_gpus):
        self.build_loss = build_loss  # build_loss(gpu_id) dequeues that tower's batch itself
        self.optimizer = optimizer
        self.num_gpus = num_gpus

    def tower_gradients(self):
        tower_grads = []
        for gpu in range(self.num_gpus):
            with tf.device('/gpu:%d' % gpu):
                with tf.variable_scope(tf.get_variable_scope(), reuse=gpu > 0):
                    loss = self.build_loss(gpu_id=gpu)
                    tower_grads.append(self.optimizer.compute_gradients(loss))
        return tower_grads
