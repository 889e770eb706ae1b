"""Each CIFAR-10 record split into its three colour planes, shuffled and batched as separate
examples (enqueue_many=True)."""
import os

import tensorflow as tf

PLANE_BYTES = 1024


def plane_batches(data_dir, batch_size, num_epochs=1):
    files = [os.path.join(data_dir, 'data_batch_%d.bin' % i) for i in range(1, 6)]
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
    reader = tf.FixedLengthRecordReader(record_bytes=1 + 3 * PLANE_BYTES)
    _, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    planes = tf.reshape(record[1:], [3, PLANE_BYTES])
    labels = tf.fill([3], tf.cast(record[0], tf.int32))
    return tf.train.shuffle_batch([planes, labels], batch_size=batch_size, capacity=200,
                                  min_after_dequeue=50, enqueue_many=True,
                                  allow_smaller_final_batch=True)
