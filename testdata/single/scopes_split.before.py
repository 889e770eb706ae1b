"""The producer outside, the reading and decoding inside name and device scopes."""
import tensorflow as tf

IMAGE_SIZE = 24


def distorted_inputs(filenames, batch_size):
    filename_queue = tf.train.string_input_producer(filenames)
    with tf.device('/cpu:0'):
        reader = tf.FixedLengthRecordReader(record_bytes=1 + 32 * 32 * 3)
        _, value = reader.read(filename_queue)
    with tf.name_scope('data_augmentation'):
        record = tf.decode_raw(value, tf.uint8)
        label = tf.cast(record[0], tf.int32)
        image = tf.cast(tf.transpose(tf.reshape(record[1:], [3, 32, 32]), [1, 2, 0]), tf.float32)
        # Random crop and flip, as the CIFAR-10 tutorial does.
        distorted = tf.random_crop(image, [IMAGE_SIZE, IMAGE_SIZE, 3])
        distorted = tf.image.random_flip_left_right(distorted)
        float_image = tf.image.per_image_standardization(distorted)
        min_queue_examples = int(50000 * 0.4)
        print('Filling queue with %d CIFAR images before starting to train.' % min_queue_examples)
    images, labels = tf.train.shuffle_batch(
        [float_image, label],
        batch_size=batch_size,
        num_threads=16,
        capacity=min_queue_examples + 3 * batch_size,
        min_after_dequeue=min_queue_examples)
    return images, labels
