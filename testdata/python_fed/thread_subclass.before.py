"""A feeder that is itself a thread, as TTS training code often wrote it: run() loops over groups of
examples, a helper feeds each batch of a group through a list of placeholders."""
import threading
import traceback

import numpy as np
import tensorflow as tf


class DataFeeder(threading.Thread):
    """Feeds (inputs, input_lengths) batches into a queue on a background thread."""

    def __init__(self, coordinator, texts, batch_size):
        super(DataFeeder, self).__init__()
        self._coord = coordinator
        self._texts = texts
        self._batch_size = batch_size
        self._offset = 0

        # Placeholders for one batch; the batch size is left open.
        self._placeholders = [
            tf.placeholder(tf.int32, [None, None], 'inputs'),
            tf.placeholder(tf.int32, [None], 'input_lengths'),
        ]

        # Create queue for buffering data:
        queue = tf.FIFOQueue(4, [tf.int32, tf.int32], name='input_queue')
        self._enqueue_op = queue.enqueue(self._placeholders)
        self.inputs, self.input_lengths = queue.dequeue()
        self.inputs.set_shape(self._placeholders[0].shape)
        self.input_lengths.set_shape(self._placeholders[1].shape)

    def start_in_session(self, session):
        self._session = session
        self.start()

    def run(self):
        try:
            while not self._coord.should_stop():
                self._enqueue_next_group()
        except Exception as e:
            traceback.print_exc()
            self._coord.request_stop(e)

    def _enqueue_next_group(self):
        n = self._batch_size
        examples = [self._next_example() for _ in range(n * 2)]
        for start in range(0, len(examples), n):
            batch = examples[start:start + n]
            feed_dict = dict(zip(self._placeholders, _prepare_batch(batch)))
            self._session.run(self._enqueue_op, feed_dict=feed_dict)

    def _next_example(self):
        if self._offset >= len(self._texts):
            self._offset = 0
        text = self._texts[self._offset]
        self._offset += 1
        return np.asarray([ord(c) for c in text], dtype=np.int32)


def _prepare_batch(batch):
    longest = max(len(x) for x in batch)
    inputs = np.stack([np.pad(x, (0, longest - len(x)), 'constant') for x in batch])
    return inputs, np.asarray([len(x) for x in batch], dtype=np.int32)
