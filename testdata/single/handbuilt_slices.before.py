"""Rows of in-memory arrays (slice_input_producer) through a hand-built RandomShuffleQueue, drained with
dequeue_up_to: the last, smaller batch is kept."""
import tensorflow as tf


def sliced(images, labels, batch_size):
    image, label = tf.train.slice_input_producer([images, labels], num_epochs=1)
    image = tf.image.flip_left_right(image)
    queue = tf.RandomShuffleQueue(capacity=64, min_after_dequeue=16, dtypes=[tf.float32, tf.int32],
                                  shapes=[[8, 8, 1], []])
    enqueue = queue.enqueue([image, label])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 2))
    return queue.dequeue_up_to(batch_size)
