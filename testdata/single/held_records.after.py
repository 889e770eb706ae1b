"""A segmentation-style reader: __init__ slices image paths and labels with a producer kept on the
object, reads each row with a helper that takes the queue's row and __init__'s own arguments, and
keeps the record on the object; dequeue() batches it. The records' dataset is built in __init__
and held under the queue's attribute; dequeue() batches what the object holds. Code outside the
class also reads one record at a time (`reader.image`), so __init__ binds the records too. A
second class, whose batching method reads its records in another statement as well, stays as it
is, with the reason."""
import tensorflow as tf


def read_labelled_image(input_queue, size, scale):
    """One (image, label) from a row of (path, label)."""
    contents = tf.read_file(input_queue[0])
    image = tf.image.decode_png(contents, channels=1)
    image = tf.image.resize_images(image, [size, size])
    return image * scale, input_queue[1]


class ImageReader(object):
    """Reads images and their labels, and enqueues them into a TensorFlow queue."""

    def __init__(self, paths, labels, size, scale, num_epochs=None):
        self.size = size
        self.paths = tf.convert_to_tensor(paths, dtype=tf.string)
        self.labels = tf.convert_to_tensor(labels, dtype=tf.int64)
        def parse_record(*queue):
            image, label = read_labelled_image(queue, self.size, scale)
            return image, label

        # evaluation reads in order
        dataset = tf.data.Dataset.from_tensor_slices((self.paths, self.labels))
        if num_epochs is None:
            dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(self.paths, out_type=tf.int64)[0], num_epochs))
        else:
            dataset = dataset.repeat(num_epochs)
        dataset = dataset.map(parse_record)
        self.queue = dataset
        self.image, self.label = dataset.make_one_shot_iterator().get_next()

    def dequeue(self, num_elements):
        """Batches of (image, label)."""
        dataset = self.queue
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(num_elements))
        dataset = dataset.prefetch(1)
        image_batch, label_batch = dataset.make_one_shot_iterator().get_next()
        return image_batch, label_batch


def train_batches(pattern_files, batch_size):
    labels = [index % 10 for index in range(len(pattern_files))]
    reader = ImageReader(pattern_files, labels, 8, 2.0, num_epochs=2)
    image_batch, label_batch = reader.dequeue(batch_size)
    return image_batch, label_batch


def single_records(pattern_files):
    labels = [index % 10 for index in range(len(pattern_files))]
    reader = ImageReader(pattern_files, labels, 8, 0.5, num_epochs=1)
    image, label = reader.image, reader.label
    return tf.expand_dims(image, 0), tf.expand_dims(label, 0)


class PathReader(object):
    """One record alone: `tf.train.batch([self.path], n)` gave a tensor, not a list of one."""

    def __init__(self, paths):
        def parse_record(*rows):
            path = tf.string_join([rows[0], '#'])
            return path

        dataset = tf.data.Dataset.from_tensor_slices(paths)
        dataset = dataset.map(parse_record)
        dataset = dataset.repeat()
        self.rows = dataset

    def dequeue(self, n):
        dataset = self.rows
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(n))
        dataset = dataset.prefetch(1)
        return dataset.make_one_shot_iterator().get_next()


def path_batches(pattern_files, batch_size):
    return PathReader(pattern_files).dequeue(batch_size)


class CountedReader(object):
    def __init__(self, paths):
        self.queue = tf.train.slice_input_producer([paths], shuffle=False)
        self.path = self.queue[0]

    def dequeue(self, n):
        tf.summary.text('first_path', self.path)
        return tf.train.batch([self.path], n)
