#!/usr/bin/env python
"""A whole script at module level: build the queue, run it until the epochs are done."""
import sys

import tensorflow as tf

files = sys.argv[1:]
batch_size = 16

filename_queue = tf.train.string_input_producer(files, num_epochs=2)
reader = tf.FixedLengthRecordReader(record_bytes=3073)
_, value = reader.read(filename_queue)
record = tf.decode_raw(value, tf.uint8)
label = tf.cast(record[0], tf.int32)
image = tf.reshape(record[1:], [3, 32, 32])
images, labels = tf.train.shuffle_batch([image, label], batch_size=batch_size,
                                        capacity=2000, min_after_dequeue=1000)
mean_label = tf.reduce_mean(tf.cast(labels, tf.float32))

with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    try:
        while not coord.should_stop():
            print(sess.run(mean_label))
    except tf.errors.OutOfRangeError:
        print('epochs done')
    finally:
        coord.request_stop()
        coord.join(threads)
