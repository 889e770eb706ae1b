#!/usr/bin/env python
"""A whole script at module level: build the queue, run it until the epochs are done."""
import sys

import tensorflow as tf

files = sys.argv[1:]
batch_size = 16


def parse_record(value):
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(record[0], tf.int32)
    image = tf.reshape(record[1:], [3, 32, 32])
    return image, label


dataset = tf.data.Dataset.from_tensor_slices(files)
dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=3073))
dataset = dataset.map(parse_record)
dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(1000, 2))
dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
dataset = dataset.prefetch(1)
images, labels = dataset.make_one_shot_iterator().get_next()
mean_label = tf.reduce_mean(tf.cast(labels, tf.float32))

with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    try:
        while True:
            print(sess.run(mean_label))
    except tf.errors.OutOfRangeError:
        print('epochs done')
