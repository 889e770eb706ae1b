"""Range producers taken several indices at a time: `dequeue_many(n)` (an epoch's worth of
shuffled indices that the training loop fetches, as face-recognition trainers do) and
`dequeue_up_to(n)` (the last, smaller batch too)."""
import tensorflow as tf


def shuffled_indices(count, batch_size, steps_per_epoch):
    # Indices into the list of examples, shuffled anew every epoch.
    dataset = tf.data.Dataset.range(tf.cast(count, tf.int64))
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.cast(count, tf.int64)))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size * steps_per_epoch))
    index_dequeue_op = tf.cast(dataset.make_one_shot_iterator().get_next(), tf.int32, name='index_dequeue')
    return index_dequeue_op


def ordered_indices(count, batch_size):
    """Two epochs of the indices in order, the last batch smaller."""
    dataset_2 = tf.data.Dataset.range(tf.cast(count, tf.int64))
    dataset_2 = dataset_2.repeat(2)
    dataset_2 = dataset_2.batch(batch_size)
    indices = tf.cast(dataset_2.make_one_shot_iterator().get_next(), tf.int32)
    return indices


def step_indices(epoch_size, shuffle=False):
    """A language model's step counter: the steps of an epoch in order, or shuffled when asked."""
    dataset_3 = tf.data.Dataset.range(tf.cast(epoch_size, tf.int64))
    if shuffle:
        dataset_3 = dataset_3.apply(tf.contrib.data.shuffle_and_repeat(tf.cast(epoch_size, tf.int64)))
    else:
        dataset_3 = dataset_3.repeat()
    i = tf.cast(dataset_3.make_one_shot_iterator().get_next(), tf.int32)
    return tf.reshape(i, [1])
