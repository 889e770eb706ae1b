"""Lists for `*_join` built by a loop that dequeues file names from one producer, each iteration
reading and decoding its own file: the join's n threads each took their own names, so the names
are the records of one dataset, mapped n at a time. A loop that runs code before its dequeue, or
uses its variable, stays, with the reason."""
import tensorflow as tf


def image_batches(pattern_files, batch_size, threads=3):
    path_queue = tf.train.string_input_producer(pattern_files, num_epochs=1, shuffle=True)
    per_thread = []
    for _ in range(threads):
        contents = tf.read_file(path_queue.dequeue())
        image = tf.image.decode_png(contents, channels=1)
        image = tf.image.resize_images(image, [28, 28])
        per_thread.append([image])
    return tf.train.batch_join(per_thread, batch_size=batch_size, allow_smaller_final_batch=True)


def named_batches(pattern_files, batch_size):
    # The file name goes with its pixels, as a dict.
    path_queue = tf.train.string_input_producer(pattern_files, num_epochs=2, shuffle=False)
    examples = []
    for _ in range(2):
        path = path_queue.dequeue()
        pixels = tf.image.decode_png(tf.read_file(path), channels=1)
        examples.append({'path': path, 'mean': tf.reduce_mean(tf.to_float(pixels))})
    return tf.train.shuffle_batch_join(examples, batch_size=batch_size, capacity=40, min_after_dequeue=10,
                                       allow_smaller_final_batch=True)


def numbered_batches(pattern_files, batch_size):
    path_queue = tf.train.string_input_producer(pattern_files, num_epochs=1)
    per_thread = []
    for index in range(2):
        contents = tf.read_file(path_queue.dequeue())
        per_thread.append([tf.string_join([contents, tf.as_string(index)])])
    return tf.train.batch_join(per_thread, batch_size=batch_size, allow_smaller_final_batch=True)


def counted_batches(pattern_files, batch_size):
    path_queue = tf.train.string_input_producer(pattern_files, num_epochs=1)
    per_thread = []
    for _ in range(2):
        tf.logging.info('one more reading thread')
        contents = tf.read_file(path_queue.dequeue())
        per_thread.append([contents])
    return tf.train.batch_join(per_thread, batch_size=batch_size, allow_smaller_final_batch=True)
