"""Look at each file's digits in order: one pass per file, the last batch smaller."""
import tensorflow as tf

import digits.records as digit_records


def preview_batches(files, batch_size):
    """Per file, batches of (image, label) in file order."""
    digit_io = digit_records.DigitIO()
    images_per_file, labels_per_file = [], []
    for path in files:
        image, label = digit_io.reader.read_digits(path, 1)
        images, labels = tf.train.batch([image, label], batch_size=batch_size, allow_smaller_final_batch=True)
        images_per_file.append(images)
        labels_per_file.append(labels)
    return images_per_file, labels_per_file
