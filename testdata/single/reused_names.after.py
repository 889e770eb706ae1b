"""Names reused for the record: the parameters that held the input lists rebound to the per-record
tensors, and a function whose local shares its own name."""
import tensorflow as tf


def labelled_images(image, label, batch_size):
    image = tf.cast(image, tf.string)
    label = tf.cast(label, tf.int64)
    def parse_record(*queue):
        label = queue[1]
        image = tf.image.decode_png(tf.read_file(queue[0]), channels=1)
        image = tf.image.resize_images(image, [12, 12])
        return image, label

    dataset = tf.data.Dataset.from_tensor_slices((image, label))
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    image_batch, label_batch = dataset.make_one_shot_iterator().get_next()
    return image_batch, label_batch


def image(files, batch_size):
    def parse_record_2(contents):
        image = tf.image.decode_png(contents, channels=1)
        image = tf.image.resize_images(image, [8, 8])
        return image

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.map(tf.read_file)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()


def reused_inputs(pattern_files, batch_size):
    return labelled_images(pattern_files, [index % 10 for index in range(len(pattern_files))], batch_size)


def image_inputs(pattern_files, batch_size):
    return image(pattern_files, batch_size)
