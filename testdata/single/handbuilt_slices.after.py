"""Rows of in-memory arrays (slice_input_producer) through a hand-built RandomShuffleQueue, drained with
dequeue_up_to: the last, smaller batch is kept."""
import tensorflow as tf


def sliced(images, labels, batch_size):
    def parse_record(image, label):
        image = tf.image.flip_left_right(image)
        with tf.control_dependencies([tf.assert_equal(tf.shape(image), tf.constant([8, 8, 1], tf.int32))]):
            image = tf.identity(image)
        image.set_shape([8, 8, 1])
        with tf.control_dependencies([tf.assert_equal(tf.shape(label), tf.constant([], tf.int32))]):
            label = tf.identity(label)
        label.set_shape([])
        return image, label

    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(images, out_type=tf.int64)[0], 1))
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
