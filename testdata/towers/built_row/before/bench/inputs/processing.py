"""Batching shared by the data sets: a row of tensors per example, a batch of rows out."""
import multiprocessing

import tensorflow as tf


def build_batch(features, label, min_queue_examples, batch_size, shuffle):
    """Batches one example at a time.

    Args:
        features: the features of one example.
        label: its label, or a list of tensors [label, extra, ...].
        min_queue_examples: examples kept in the queue to mix them.
        batch_size: examples per batch.
        shuffle: whether to mix the examples first.
    """
    threads = multiprocessing.cpu_count()
    if threads > 2:
        threads -= 2

    if isinstance(label, list):
        row = [features] + label
    else:
        row = [features, label]

    if shuffle:
        return tf.train.shuffle_batch(
            row,
            batch_size=batch_size,
            num_threads=threads,
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples)

    return tf.train.batch(
        row,
        batch_size=batch_size,
        num_threads=threads,
        capacity=min_queue_examples + 3 * batch_size)


def scale(values):
    """Halves the values, then shifts them down by one."""
    return values * 0.5 - 1.0
