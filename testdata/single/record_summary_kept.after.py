"""Per-record preprocessing that writes an image summary of the first decoding thread's example,
as Inception's and slim's preprocessing do. In a map function the summary would be made in the
function's graph, where merge_all() never sees it: by default the chain keeps its queue, and the
summary is named (QM910); `--unsafe` migrates it without the summary (tests/test_lost_summaries.py)."""
import tensorflow as tf


def distort(image, thread_id=0):
    image = tf.image.random_flip_left_right(image)
    if not thread_id:
        tf.summary.image('distorted_image', tf.expand_dims(image, 0))
    return image


def distorted_inputs(files, batch_size=16):
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, {
        'image': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64)})
    image = tf.reshape(tf.decode_raw(features['image'], tf.uint8), [24, 24, 3])
    image = distort(tf.cast(image, tf.float32))
    return tf.train.shuffle_batch([image, features['label']], batch_size=batch_size, capacity=200,
                                  min_after_dequeue=100)
