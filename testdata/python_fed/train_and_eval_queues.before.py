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


class ConditionedFeeder(object):
    """The same two queues over a list whose first placeholder each arm of an if makes, grown by
    an append when a flag says so, with one dtypes list for both queues; each dequeue is bound to
    one name and read by index (a vocoder feeder's shape)."""

    def __init__(self, train_batches, eval_batches, scaled, with_ids):
        self.train_batches, self.eval_batches, self.with_ids = train_batches, eval_batches, with_ids
        if scaled:
            features = tf.placeholder(tf.float32, shape=(None, 4), name='scaled_features')
            feature_type = tf.float32
        else:
            features = tf.placeholder(tf.int32, shape=(None, 4), name='raw_features')
            feature_type = tf.int32
        self._placeholders = [features, tf.placeholder(tf.int32, shape=(None,), name='lengths')]
        queue_types = [feature_type, tf.int32]
        if with_ids:
            self._placeholders.append(tf.placeholder(tf.int64, shape=(None,), name='ids'))
            queue_types.append(tf.int64)

        queue = tf.FIFOQueue(4, queue_types, name='input_queue')
        self._enqueue_op = queue.enqueue(self._placeholders)
        variables = queue.dequeue()
        self.features = variables[0]
        self.features.set_shape(self._placeholders[0].shape)
        self.ids = variables[2] if with_ids else variables[1]

        eval_queue = tf.FIFOQueue(1, queue_types, name='eval_queue')
        self._eval_enqueue_op = eval_queue.enqueue(self._placeholders)
        eval_variables = eval_queue.dequeue()
        self.eval_features = eval_variables[0]
        self.eval_ids = eval_variables[2] if with_ids else eval_variables[1]

    def start_threads(self, session):
        self._session = session
        thread = threading.Thread(name='train_feeder', target=self._enqueue_train)
        thread.daemon = True
        thread.start()
        thread = threading.Thread(name='eval_feeder', target=self._enqueue_eval)
        thread.daemon = True
        thread.start()

    def _enqueue_train(self):
        for ids in self.train_batches:
            feed_dict = dict(zip(self._placeholders, _conditioned(ids)))
            self._session.run(self._enqueue_op, feed_dict=feed_dict)

    def _enqueue_eval(self):
        for ids in self.eval_batches:
            feed_dict = dict(zip(self._placeholders, _conditioned(ids)))
            self._session.run(self._eval_enqueue_op, feed_dict=feed_dict)


def _conditioned(ids):
    """Features, lengths and ids; zip() with the placeholders drops the ids when there is no third."""
    features, ids = _prepare(ids)
    return features, np.full(len(ids), 4, np.int32), ids
