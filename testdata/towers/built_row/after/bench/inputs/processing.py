"""Batching shared by the data sets: a row of tensors per example, a batch of rows out."""


def build_batch(features, label, min_queue_examples, batch_size, shuffle):
    """Batches one example at a time.

    Args:
        features: the features of one example.
        label: its label, or a list of tensors [label, extra, ...].
        min_queue_examples: examples kept in the queue to mix them.
        batch_size: examples per batch.
        shuffle: whether to mix the examples first.
    """

    if isinstance(label, list):
        row = [features] + label
    else:
        row = [features, label]

    return row


def scale(values):
    """Halves the values, then shifts them down by one."""
    return values * 0.5 - 1.0
