"""Image paths and labels sliced row by row: the 'list of files + list of labels' reader."""
import tensorflow as tf


class LabelledImages(object):
    def __init__(self, paths, labels, image_size=20):
        self.paths = paths
        self.labels = labels
        self.image_size = image_size

    def batches(self, batch_size, num_epochs=None):
        # Rows of (path, label), shuffled every epoch.
        path, label = tf.train.slice_input_producer([self.paths, self.labels], num_epochs=num_epochs, seed=3)
        image = tf.image.decode_png(tf.read_file(path), channels=1)
        image.set_shape([self.image_size, self.image_size, 1])
        image = tf.cast(image, tf.float32) * (1.0 / 255)
        return tf.train.batch([image, label], batch_size=batch_size, num_threads=2,
                              allow_smaller_final_batch=True)


def image_inputs(pattern_files, batch_size, num_epochs=None):
    labels = [index % 10 for index in range(len(pattern_files))]
    return LabelledImages(pattern_files, labels).batches(batch_size, num_epochs)


def indexed_inputs(pattern_files, batch_size, num_epochs=None):
    """The other common spelling: one name for the sliced list, indexed by the code."""
    labels = tf.constant([index % 10 for index in range(len(pattern_files))], dtype=tf.int64)
    input_queue = tf.train.slice_input_producer([pattern_files, labels], num_epochs=num_epochs,
                                                shuffle=False)
    image = tf.image.decode_png(tf.read_file(input_queue[0]), channels=1)
    image = tf.image.resize_images(image, [10, 10])
    images, label_batch = tf.train.batch([image, input_queue[1]], batch_size=batch_size,
                                         allow_smaller_final_batch=True)
    return images, label_batch
