"""The producer outside, the reading and decoding inside name and device scopes."""
import tensorflow as tf

IMAGE_SIZE = 24


def distorted_inputs(filenames, batch_size):
    with tf.device('/cpu:0'):
        graph_seed = tf.get_default_graph().seed

        def parse_record(value):
            tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
            with tf.name_scope('data_augmentation'):
                record = tf.decode_raw(value, tf.uint8)
                label = tf.cast(record[0], tf.int32)
                image = tf.cast(tf.transpose(tf.reshape(record[1:], [3, 32, 32]), [1, 2, 0]), tf.float32)
                # Random crop and flip, as the CIFAR-10 tutorial does.
                distorted = tf.random_crop(image, [IMAGE_SIZE, IMAGE_SIZE, 3])
                distorted = tf.image.random_flip_left_right(distorted)
                float_image = tf.image.per_image_standardization(distorted)
            return float_image, label
    with tf.name_scope('data_augmentation'):
        min_queue_examples = int(50000 * 0.4)
        print('Filling shuffle buffer with %d CIFAR images before starting to train.' % min_queue_examples)

    dataset = tf.data.Dataset.from_tensor_slices(filenames)
    dataset = dataset.shuffle(tf.size(filenames, out_type=tf.int64))
    dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=1 + 32 * 32 * 3))
    dataset = dataset.map(parse_record, num_parallel_calls=16)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    images, labels = dataset.make_one_shot_iterator().get_next()
    return images, labels
