"""Arrays fed in chunks through a placeholder per input column and one for the target: the enqueue
takes the column placeholders, made by a comprehension, plus the target's, and the thread builds
its feed_dict key by key."""

import numpy as np
import tensorflow as tf


class ColumnFeeder(object):
    def __init__(self, columns, target, chunk_size):
        self.columns = [np.asarray(column, np.float32) for column in columns]
        self.target = np.asarray(target, np.int64)
        self.chunk_size = chunk_size
        self.column_ins = [tf.placeholder(tf.float32, [None] + list(column.shape[1:])) for column in self.columns]
        self.target_in = tf.placeholder(tf.int64, [None])
        dataset = tf.data.Dataset.from_generator(self.thread_main, output_types=tuple(placeholder.dtype for placeholder in self.column_ins + [self.target_in]), output_shapes=tuple(placeholder.shape for placeholder in self.column_ins + [self.target_in]))
        dataset = dataset.prefetch(8)
        self.first, self.second, self.labels = dataset.make_one_shot_iterator().get_next()

    def chunks(self):
        for start in range(0, len(self.target), self.chunk_size):
            end = start + self.chunk_size
            yield [column[start:end] for column in self.columns], self.target[start:end]

    def thread_main(self):
        for column_chunks, target_chunk in self.chunks():
            feed_dict = {self.target_in: target_chunk}
            for holder, values in zip(self.column_ins, column_chunks):
                feed_dict[holder] = values
            yield tuple(feed_dict[placeholder] for placeholder in self.column_ins + [self.target_in])

    def start(self, sess):
        pass
