"""Time how fast MNIST TFRecords can be read: a script that builds its pipeline at module level,
with a reader helper whose parameter and local reuse the script's own names (`queue`, `record`)."""
import glob
import os
import time

import tensorflow as tf

DATA_DIR = os.environ.get("MNIST_DIR", "/tmp/mnist")
BATCH_SIZE = int(os.environ.get("BATCH_SIZE", "20"))
EPOCHS = 2

queue = tf.train.string_input_producer(
    sorted(glob.glob(os.path.join(DATA_DIR, "mnist_*"))), num_epochs=EPOCHS, shuffle=True)


def read_record(queue):
    reader = tf.TFRecordReader()
    _, record = reader.read(queue)
    return record


def decode(record):
    features = tf.parse_single_example(record, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64),
    })
    image = tf.decode_raw(features['image_raw'], tf.uint8)
    image.set_shape([784])
    return tf.cast(image, tf.float32) * (1. / 255), tf.cast(features['label'], tf.int32)


record = read_record(queue)
image, label = decode(record)
images, labels = tf.train.shuffle_batch([image, label], batch_size=BATCH_SIZE, num_threads=2,
                                        capacity=200 + 3 * BATCH_SIZE, min_after_dequeue=200)


def batches():
    """The script's batches (for a caller that drains them)."""
    return images, labels


if __name__ == '__main__':
    sess = tf.Session()
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    steps, start = 0, time.time()
    try:
        while not coord.should_stop():
            sess.run([images, labels])
            steps += 1
    except tf.errors.OutOfRangeError:
        print('%d batches in %.1f s' % (steps, time.time() - start))
    finally:
        coord.request_stop()
    coord.join(threads)
