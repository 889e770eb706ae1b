"""Images read at a short side drawn for each one: an image pyramid's random scale, which the
training scripts draw and hand in (the evaluation passes one fixed size)."""
import tensorflow as tf


def decode_image(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        'image': tf.FixedLenFeature([], tf.string),
        'height': tf.FixedLenFeature([], tf.int64),
        'width': tf.FixedLenFeature([], tf.int64),
        'label': tf.FixedLenFeature([], tf.int64),
    })
    height = tf.cast(features['height'], tf.int32)
    width = tf.cast(features['width'], tf.int32)
    image = tf.reshape(tf.decode_raw(features['image'], tf.uint8), [height, width, 3])
    return image, tf.cast(features['label'], tf.int32)


def resize_short_side(image, short_side):
    shape = tf.shape(image)
    scale = tf.cast(short_side, tf.float32) / tf.cast(tf.minimum(shape[0], shape[1]), tf.float32)
    size = tf.cast(tf.cast(shape[:2], tf.float32) * scale, tf.int32)
    return tf.image.resize_images(tf.cast(image, tf.float32), size)


def next_batch(pattern, batch_size, short_side, is_training):
    filename_queue = tf.train.string_input_producer(tf.gfile.Glob(pattern), shuffle=is_training)
    image, label = decode_image(filename_queue)
    image = resize_short_side(image, short_side)
    images, labels = tf.train.batch([image, label], batch_size=batch_size, capacity=16, num_threads=4,
                                    dynamic_pad=True)
    return images, labels
