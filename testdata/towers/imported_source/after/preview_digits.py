"""Look at each file's digits in order: one pass per file, the last batch smaller."""
import tensorflow as tf

import digits.records as digit_records


def preview_batches(files, batch_size):
    """Per file, batches of (image, label) in file order."""
    digit_io = digit_records.DigitIO()
    images_per_file, labels_per_file = [], []
    for path in files:
        def parse_record(serialized):
            image, label = digit_io.reader.read_digits(serialized, path)
            return image, label

        dataset = tf.data.Dataset.from_tensor_slices([path])
        dataset = dataset.shuffle(tf.size([path], out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record)
        dataset = dataset.repeat(1)
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        images, labels = dataset.make_one_shot_iterator().get_next()
        images_per_file.append(images)
        labels_per_file.append(labels)
    return images_per_file, labels_per_file
