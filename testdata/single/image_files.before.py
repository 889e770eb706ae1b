"""PNG files, one image per file; the file name is kept next to the pixels."""
import tensorflow as tf


def image_inputs(pattern_files, batch_size, num_epochs=None):
    """Decoded 28x28 grey images with the file each came from."""
    queue = tf.train.string_input_producer(pattern_files, num_epochs=num_epochs, shuffle=False)
    reader = tf.WholeFileReader()
    path, contents = reader.read(queue)
    image = tf.image.decode_png(contents, channels=1)
    image = tf.image.resize_images(image, [28, 28])
    image = tf.image.per_image_standardization(image)
    batch = tf.train.batch([image, path], batch_size=batch_size,
                           allow_smaller_final_batch=True)
    return batch
