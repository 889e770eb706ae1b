"""Image paths and labels sliced row by row: the 'list of files + list of labels' reader."""
import tensorflow as tf


class LabelledImages(object):
    def __init__(self, paths, labels, image_size=20):
        self.paths = paths
        self.labels = labels
        self.image_size = image_size

    def batches(self, batch_size, num_epochs=None):
        def parse_record(path, label):
            image = tf.image.decode_png(tf.read_file(path), channels=1)
            image.set_shape([self.image_size, self.image_size, 1])
            image = tf.cast(image, tf.float32) * (1.0 / 255)
            return image, label

        # Rows of (path, label), shuffled every epoch.
        dataset = tf.data.Dataset.from_tensor_slices((self.paths, self.labels))
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(self.paths, out_type=tf.int64)[0], num_epochs, seed=3))
        dataset = dataset.map(parse_record, num_parallel_calls=2)
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        return list(dataset.make_one_shot_iterator().get_next())


def image_inputs(pattern_files, batch_size, num_epochs=None):
    labels = [index % 10 for index in range(len(pattern_files))]
    return LabelledImages(pattern_files, labels).batches(batch_size, num_epochs)


def indexed_inputs(pattern_files, batch_size, num_epochs=None):
    """The other common spelling: one name for the sliced list, indexed by the code."""
    labels = tf.constant([index % 10 for index in range(len(pattern_files))], dtype=tf.int64)
    def parse_record_2(*input_queue):
        image = tf.image.decode_png(tf.read_file(input_queue[0]), channels=1)
        image = tf.image.resize_images(image, [10, 10])
        return image, input_queue[1]

    dataset_2 = tf.data.Dataset.from_tensor_slices((pattern_files, labels))
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    images, label_batch = dataset_2.make_one_shot_iterator().get_next()
    return images, label_batch
