"""Names reused for the record: the parameters that held the input lists rebound to the per-record
tensors, and a function whose local shares its own name."""
import tensorflow as tf


def labelled_images(image, label, batch_size):
    image = tf.cast(image, tf.string)
    label = tf.cast(label, tf.int64)
    queue = tf.train.slice_input_producer([image, label], num_epochs=1, shuffle=False)
    label = queue[1]
    image = tf.image.decode_png(tf.read_file(queue[0]), channels=1)
    image = tf.image.resize_images(image, [12, 12])
    image_batch, label_batch = tf.train.batch([image, label], batch_size=batch_size, num_threads=2,
                                              allow_smaller_final_batch=True)
    return image_batch, label_batch


def image(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.WholeFileReader()
    _, contents = reader.read(filename_queue)
    image = tf.image.decode_png(contents, channels=1)
    image = tf.image.resize_images(image, [8, 8])
    return tf.train.batch([image], batch_size, allow_smaller_final_batch=True)


def reused_inputs(pattern_files, batch_size):
    return labelled_images(pattern_files, [index % 10 for index in range(len(pattern_files))], batch_size)


def image_inputs(pattern_files, batch_size):
    return image(pattern_files, batch_size)
