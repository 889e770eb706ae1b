"""A loader that pushes rows kept in numpy arrays into a FIFOQueue from a thread, in blocks, and
batches them one record at a time: each record is scaled and shifted on its way, then batched
with or without a shuffle."""

import numpy as np
import tensorflow as tf


class RowLoader(object):
    BLOCK = 8

    def __init__(self, sess, batch_size, buffered=64, keep_back=8):
        self.sess = sess
        self.batch_size = batch_size
        self.buffered = buffered
        self.keep_back = keep_back

    def batches(self, rows, ids, shuffle=False, scale=False):
        width = rows.shape[1]

        def push_blocks():
            for start in range(0, len(rows), self.BLOCK):
                if self.coord.should_stop():
                    break
                end = start + self.BLOCK
                yield rows[start:end], ids[start:end]

        dataset = tf.data.Dataset.from_generator(push_blocks, output_types=(tf.float32, tf.int64), output_shapes=([None, width], [None]))
        dataset = dataset.apply(tf.contrib.data.unbatch())
        dataset = dataset.prefetch(self.buffered)

        def parse_record(row, ident):
            # per record: optional scaling, then a shift
            if scale:
                row = row * 2.0
            row = row + 1.0
            return row, ident

        dataset = dataset.map(parse_record)
        if shuffle:
            dataset = dataset.shuffle(self.keep_back or self.buffered, seed=5)
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
        else:
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
        dataset = dataset.prefetch(1)
        row_batch, id_batch = dataset.make_one_shot_iterator().get_next()

        self.coord = tf.train.Coordinator()
        self.threads = []
        return row_batch, id_batch

    def close(self):
        self.coord.request_stop()
        self.coord.join(self.threads)
