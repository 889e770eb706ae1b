"""One list of placeholders fed to two queues, a training queue and an evaluation queue, each
filled with whole batches by a thread of its own, both threads bound to one name in turn (a
speech-synthesis feeder keeps a train and an eval queue this way): each queue becomes a dataset
over its own thread's loop."""
import threading

import numpy as np
import tensorflow as tf


class TrainAndEvalFeeder(object):
    def __init__(self, train_batches, eval_batches):
        self.train_batches, self.eval_batches = train_batches, eval_batches
        self._placeholders = [tf.placeholder(tf.float32, [None, 4], name='features'),
                              tf.placeholder(tf.int64, [None], name='ids')]

        queue = tf.FIFOQueue(4, [tf.float32, tf.int64], name='train_queue')
        self._enqueue_op = queue.enqueue(self._placeholders)
        self.features, self.ids = queue.dequeue()
        self.features.set_shape(self._placeholders[0].shape)
        self.ids.set_shape(self._placeholders[1].shape)

        eval_queue = tf.FIFOQueue(1, [tf.float32, tf.int64], name='eval_queue')
        self._eval_enqueue_op = eval_queue.enqueue(self._placeholders)
        self.eval_features, self.eval_ids = eval_queue.dequeue()
        self.eval_features.set_shape(self._placeholders[0].shape)
        self.eval_ids.set_shape(self._placeholders[1].shape)

    def start_threads(self, session):
        self._session = session
        # One name for both threads, bound again for the second.
        thread = threading.Thread(name='train_feeder', target=self._enqueue_train)
        thread.daemon = True
        thread.start()
        thread = threading.Thread(name='eval_feeder', target=self._enqueue_eval)
        thread.daemon = True
        thread.start()

    def _enqueue_train(self):
        for ids in self.train_batches:
            feed_dict = dict(zip(self._placeholders, _prepare(ids)))
            self._session.run(self._enqueue_op, feed_dict=feed_dict)

    def _enqueue_eval(self):
        for ids in self.eval_batches:
            feed_dict = dict(zip(self._placeholders, _prepare(ids)))
            self._session.run(self._eval_enqueue_op, feed_dict=feed_dict)


def _prepare(ids):
    ids = np.asarray(ids, np.int64)
    return (ids[:, None] * 4 + np.arange(4) / 10.0).astype(np.float32), ids
