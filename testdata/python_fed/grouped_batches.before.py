"""A feeder that makes whole batches in Python: examples grouped by length, each group cut into
batches, each batch padded in numpy and fed through a list of placeholders by a helper that the
thread's loop calls."""
import random
import threading

import numpy as np
import tensorflow as tf

_BATCHES_PER_GROUP = 4


class BatchFeeder(object):
    """Feeds padded (tokens, lengths) batches made from `sentences` on a background thread."""

    def __init__(self, coordinator, sentences, batch_size, seed=0):
        self._coord = coordinator
        self._sentences = sentences
        self._batch_size = batch_size
        self._offset = 0
        self._random = random.Random(seed)
        self._placeholders = [
            tf.placeholder(tf.int32, [None, None], 'tokens'),
            tf.placeholder(tf.int32, [None], 'lengths'),
        ]
        # A small buffer of ready batches.
        queue = tf.FIFOQueue(8, [tf.int32, tf.int32], name='batch_queue')
        self._enqueue_op = queue.enqueue(self._placeholders)
        self.tokens, self.lengths = queue.dequeue()
        self.tokens.set_shape(self._placeholders[0].shape)
        self.lengths.set_shape(self._placeholders[1].shape)

    def start_in_session(self, session):
        self._session = session
        self._thread = threading.Thread(target=self._run, name='batch_feeder')
        self._thread.daemon = True
        self._thread.start()

    def _run(self):
        while not self._coord.should_stop():
            self._enqueue_next_group()

    def _enqueue_next_group(self):
        n = self._batch_size
        group = [self._next_sentence() for _ in range(n * _BATCHES_PER_GROUP)]
        group.sort(key=len)  # similar lengths in a batch: little padding
        batches = [group[i:i + n] for i in range(0, len(group), n)]
        self._random.shuffle(batches)
        for batch in batches:
            feed_dict = dict(zip(self._placeholders, _prepare_batch(batch)))
            self._session.run(self._enqueue_op, feed_dict=feed_dict)

    def _next_sentence(self):
        if self._offset == len(self._sentences):
            self._offset = 0
        sentence = self._sentences[self._offset]
        self._offset += 1
        return sentence


def _prepare_batch(batch):
    longest = max(len(sentence) for sentence in batch)
    tokens = np.stack([np.pad(np.asarray(s, np.int32), (0, longest - len(s)), 'constant') for s in batch])
    lengths = np.asarray([len(s) for s in batch], np.int32)
    return tokens, lengths
