"""Images read at a short side drawn for each one: an image pyramid's random scale, which the
training scripts draw and hand in (the evaluation passes one fixed size)."""
import tensorflow as tf


def decode_image(serialized):
    features = tf.parse_single_example(serialized, features={
        'image': tf.FixedLenFeature([], tf.string),
        'height': tf.FixedLenFeature([], tf.int64),
        'width': tf.FixedLenFeature([], tf.int64),
        'label': tf.FixedLenFeature([], tf.int64),
    })
    height = tf.cast(features['height'], tf.int32)
    width = tf.cast(features['width'], tf.int32)
    image = tf.reshape(tf.decode_raw(features['image'], tf.uint8), [height, width, 3])
    return image, tf.cast(features['label'], tf.int32)


def resize_short_side(image, short_side):
    shape = tf.shape(image)
    scale = tf.cast(short_side, tf.float32) / tf.cast(tf.minimum(shape[0], shape[1]), tf.float32)
    size = tf.cast(tf.cast(shape[:2], tf.float32) * scale, tf.int32)
    return tf.image.resize_images(tf.cast(image, tf.float32), size)


def next_batch(pattern, batch_size, short_side, is_training):
    def parse_record(serialized):
        short_side_2 = short_side() if callable(short_side) else short_side
        image, label = decode_image(serialized)
        image = resize_short_side(image, short_side_2)
        return image, label

    files = tf.gfile.Glob(pattern)
    dataset = tf.data.Dataset.from_tensor_slices(files)
    if is_training:
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=4)
    dataset = dataset.repeat()
    dataset = dataset.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, dataset.output_shapes))
    dataset = dataset.prefetch(1)
    images, labels = dataset.make_one_shot_iterator().get_next()
    return images, labels
