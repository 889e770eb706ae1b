"""A CIFAR-style input whose train/eval if picks the example queue's class and, in the same arms,
augments the image and sets the runner's thread count (the ResNet CIFAR input's shape). Each
record also carries its id (the first three pixel bytes), enqueued beside the image and label."""
import tensorflow as tf

IMAGE_SIZE = 32


def build_input(data_path, batch_size, mode):
    label_bytes = 1
    image_bytes = IMAGE_SIZE * IMAGE_SIZE * 3
    record_bytes = label_bytes + image_bytes

    data_files = tf.gfile.Glob(data_path)
    graph_seed = tf.get_default_graph().seed

    def parse_record(value):
        tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
        record = tf.reshape(tf.decode_raw(value, tf.uint8), [record_bytes])
        label = tf.cast(tf.slice(record, [0], [label_bytes]), tf.int32)
        id_bytes = tf.cast(tf.slice(record, [label_bytes], [3]), tf.int32)
        example_id = id_bytes[0] * 65536 + id_bytes[1] * 256 + id_bytes[2]
        depth_major = tf.reshape(tf.slice(record, [label_bytes], [image_bytes]), [3, IMAGE_SIZE, IMAGE_SIZE])
        image = tf.cast(tf.transpose(depth_major, [1, 2, 0]), tf.float32)
        if mode == 'train':
            # Pad, crop back and flip: a new view of each image every epoch.
            image = tf.image.resize_image_with_crop_or_pad(image, IMAGE_SIZE + 4, IMAGE_SIZE + 4)
            image = tf.random_crop(image, [IMAGE_SIZE, IMAGE_SIZE, 3])
            image = tf.image.random_flip_left_right(image)
            image = tf.image.per_image_standardization(image)
        else:
            image = tf.image.per_image_standardization(image)
        image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
        with tf.control_dependencies([tf.assert_equal(tf.shape(label), tf.constant([1], tf.int32))]):
            label = tf.identity(label)
        label.set_shape([1])
        with tf.control_dependencies([tf.assert_equal(tf.shape(example_id), tf.constant([], tf.int32))]):
            example_id = tf.identity(example_id)
        example_id.set_shape([])
        return image, label, example_id

    if mode == 'train':
        num_threads = 4
    else:
        num_threads = 1

    dataset = tf.data.Dataset.from_tensor_slices(data_files)
    dataset = dataset.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=record_bytes))
    dataset = dataset.map(parse_record, num_parallel_calls=num_threads)
    if mode == 'train':
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(8 * batch_size))
    else:
        dataset = dataset.repeat()
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    images, labels, ids = dataset.make_one_shot_iterator().get_next()
    labels = tf.reshape(labels, [batch_size])
    tf.summary.image('images', images)
    return images, labels, ids


def batch_ids(data_path, batch_size, mode):
    """The ids of each batch alone (the images of the train mode differ every run)."""
    return build_input(data_path, batch_size, mode)[2]
