"""A model class that lists two folders of images, keeps how many files each holds, and reads one
image of each per step through one whole-file reader; a method runs the steps. Each read becomes
its own dataset's next element; the listing variables stay for the counts, the datasets list the
same patterns themselves; the queue runners go."""
import tensorflow as tf


class PairedImages(object):

    def input_setup(self, pattern_a, pattern_b):
        files_a = tf.train.match_filenames_once(pattern_a)
        self.count_a = tf.size(files_a)
        files_b = tf.train.match_filenames_once(pattern_b)
        self.count_b = tf.size(files_b)

        def listed_files(names):
            # No file names is an error, as in the producer, not an empty epoch.
            check = tf.Assert(tf.size(names) > 0, ['string_input_producer requires a non-null input tensor'])
            with tf.control_dependencies([check]):
                return tf.data.Dataset.from_tensor_slices(tf.identity(names))

        dataset = tf.data.Dataset.from_tensors(tf.matching_files(pattern_a)).flat_map(listed_files)
        dataset = dataset.map(tf.read_file)
        dataset = dataset.repeat(1)
        file_a = dataset.make_one_shot_iterator().get_next()

        def listed_files_2(names):
            # No file names is an error, as in the producer, not an empty epoch.
            check = tf.Assert(tf.size(names) > 0, ['string_input_producer requires a non-null input tensor'])
            with tf.control_dependencies([check]):
                return tf.data.Dataset.from_tensor_slices(tf.identity(names))

        dataset_2 = tf.data.Dataset.from_tensors(tf.matching_files(pattern_b)).flat_map(listed_files_2)
        dataset_2 = dataset_2.map(tf.read_file)
        dataset_2 = dataset_2.repeat(1)
        file_b = dataset_2.make_one_shot_iterator().get_next()

        self.pixel_a = tf.reshape(tf.image.decode_png(file_a)[0, 0, 0], [1])
        self.pixel_b = tf.reshape(tf.image.decode_png(file_b)[0, 0, 0], [1])

    def first_pixels(self, sess, steps):
        pixels = [sess.run([self.pixel_a, self.pixel_b]) for _ in range(steps)]
        return pixels


def paired_pixels(pattern_a, pattern_b):
    model = PairedImages()
    model.input_setup(pattern_a, pattern_b)
    return model.pixel_a, model.pixel_b, tf.reshape(model.count_a + model.count_b, [1])
