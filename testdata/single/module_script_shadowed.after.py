"""Time how fast MNIST TFRecords can be read: a script that builds its pipeline at module level,
with a reader helper whose parameter and local reuse the script's own names (`queue`, `record`)."""
import glob
import os
import time

import tensorflow as tf

DATA_DIR = os.environ.get("MNIST_DIR", "/tmp/mnist")
BATCH_SIZE = int(os.environ.get("BATCH_SIZE", "20"))
EPOCHS = 2


def read_record(record):
    return record


def decode(record):
    features = tf.parse_single_example(record, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64),
    })
    image = tf.decode_raw(features['image_raw'], tf.uint8)
    image.set_shape([784])
    return tf.cast(image, tf.float32) * (1. / 255), tf.cast(features['label'], tf.int32)


def parse_record(record_2):
    record = read_record(record_2)
    image, label = decode(record)
    return image, label


files = sorted(glob.glob(os.path.join(DATA_DIR, "mnist_*")))
dataset = tf.data.Dataset.from_tensor_slices(files)
dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
dataset = dataset.flat_map(tf.data.TFRecordDataset)
dataset = dataset.map(parse_record, num_parallel_calls=2)
dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(200, EPOCHS))
dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(BATCH_SIZE))
dataset = dataset.prefetch(1)
images, labels = dataset.make_one_shot_iterator().get_next()


def batches():
    """The script's batches (for a caller that drains them)."""
    return images, labels


if __name__ == '__main__':
    sess = tf.Session()
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    steps, start = 0, time.time()
    try:
        while True:
            sess.run([images, labels])
            steps += 1
    except tf.errors.OutOfRangeError:
        print('%d batches in %.1f s' % (steps, time.time() - start))
