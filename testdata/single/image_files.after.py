"""PNG files, one image per file; the file name is kept next to the pixels."""
import tensorflow as tf


def image_inputs(pattern_files, batch_size, num_epochs=None):
    """Decoded 28x28 grey images with the file each came from."""
    def parse_record(path, contents):
        image = tf.image.decode_png(contents, channels=1)
        image = tf.image.resize_images(image, [28, 28])
        image = tf.image.per_image_standardization(image)
        return image, path

    dataset = tf.data.Dataset.from_tensor_slices(pattern_files)
    dataset = dataset.map(lambda filename: (filename, tf.read_file(filename)))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    batch = list(dataset.make_one_shot_iterator().get_next())
    return batch
