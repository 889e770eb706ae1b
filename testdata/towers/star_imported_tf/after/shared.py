"""Helpers every script of the program star-imports; TensorFlow comes with them."""
import os

import tensorflow as tf


def make_dir(path):
    if not os.path.exists(path):
        os.makedirs(path)


def log_scalar(name, value):
    return tf.summary.scalar(name, value)
