"""A feeder thread whose components are decided when it is built: an id component is added to the
placeholders and to the queue's dtypes only when the examples come from several groups, so the
queue is dequeued in one of two ways. Its batches always carry the ids; with one group, zip() feeds
only the placeholders there are."""
import threading

import numpy as np
import tensorflow as tf


class GroupFeeder(threading.Thread):
    """Feeds (values, lengths[, group ids]) batches of the examples of one or several groups."""

    def __init__(self, coordinator, groups, batch_size):
        super(GroupFeeder, self).__init__()
        self._coord = coordinator
        self._groups = groups
        self._batch_size = batch_size
        self._offsets = [0] * len(groups)

        self._placeholders = [
            tf.placeholder(tf.float32, [None, None], 'values'),
            tf.placeholder(tf.int32, [None], 'lengths'),
        ]
        dtypes = [tf.float32, tf.int32]

        self.with_ids = len(groups) > 1
        if self.with_ids:
            self._placeholders.append(tf.placeholder(tf.int32, [None], 'group_ids'))
            dtypes.append(tf.int32)

        queue = tf.FIFOQueue(4, dtypes, name='group_queue')
        self._enqueue_op = queue.enqueue(self._placeholders)

        if self.with_ids:
            self.values, self.lengths, \
                self.group_ids = queue.dequeue()
        else:
            self.values, self.lengths = queue.dequeue()
            self.group_ids = None

        self.values.set_shape(self._placeholders[0].shape)
        self.lengths.set_shape(self._placeholders[1].shape)
        if self.with_ids:
            self.group_ids.set_shape(self._placeholders[2].shape)

    def start_in_session(self, session):
        self._session = session
        self.start()

    def run(self):
        while not self._coord.should_stop():
            self._enqueue_next_round()

    def _enqueue_next_round(self):
        for group in range(len(self._groups)):
            batch = [self._next_example(group) for _ in range(self._batch_size)]
            feed_dict = dict(zip(self._placeholders, _prepare_batch(batch)))
            self._session.run(self._enqueue_op, feed_dict=feed_dict)

    def _next_example(self, group):
        examples = self._groups[group]
        example = examples[self._offsets[group] % len(examples)]
        self._offsets[group] += 1
        return example, group


def _prepare_batch(batch):
    longest = max(len(values) for values, _ in batch)
    values = np.stack([np.pad(np.asarray(v, np.float32), (0, longest - len(v)), 'constant') for v, _ in batch])
    lengths = np.asarray([len(v) for v, _ in batch], dtype=np.int32)
    group_ids = np.asarray([group for _, group in batch], dtype=np.int32)
    return values, lengths, group_ids
