"""Range producers taken several indices at a time: `dequeue_many(n)` (an epoch's worth of
shuffled indices that the training loop fetches, as face-recognition trainers do) and
`dequeue_up_to(n)` (the last, smaller batch too)."""
import tensorflow as tf


def shuffled_indices(count, batch_size, steps_per_epoch):
    # Indices into the list of examples, shuffled anew every epoch.
    index_queue = tf.train.range_input_producer(count, num_epochs=None, shuffle=True, seed=None, capacity=32)
    index_dequeue_op = index_queue.dequeue_many(batch_size * steps_per_epoch, 'index_dequeue')
    return index_dequeue_op


def ordered_indices(count, batch_size):
    """Two epochs of the indices in order, the last batch smaller."""
    indices = tf.train.range_input_producer(count, num_epochs=2, shuffle=False).dequeue_up_to(batch_size)
    return indices


def step_indices(epoch_size, shuffle=False):
    """A language model's step counter: the steps of an epoch in order, or shuffled when asked."""
    i = tf.train.range_input_producer(epoch_size, shuffle=shuffle).dequeue()
    return tf.reshape(i, [1])
