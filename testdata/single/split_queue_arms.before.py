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
    file_queue = tf.train.string_input_producer(data_files, shuffle=True)
    reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)
    _, value = reader.read(file_queue)

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

        example_queue = tf.RandomShuffleQueue(
            capacity=16 * batch_size,
            min_after_dequeue=8 * batch_size,
            dtypes=[tf.float32, tf.int32, tf.int32],
            shapes=[[IMAGE_SIZE, IMAGE_SIZE, 3], [1], []])
        num_threads = 4
    else:
        image = tf.image.per_image_standardization(image)

        example_queue = tf.FIFOQueue(
            3 * batch_size,
            dtypes=[tf.float32, tf.int32, tf.int32],
            shapes=[[IMAGE_SIZE, IMAGE_SIZE, 3], [1], []])
        num_threads = 1

    example_enqueue_op = example_queue.enqueue([image, label, example_id])
    tf.train.add_queue_runner(tf.train.queue_runner.QueueRunner(
        example_queue, [example_enqueue_op] * num_threads))

    images, labels, ids = example_queue.dequeue_many(batch_size)
    labels = tf.reshape(labels, [batch_size])
    tf.summary.image('images', images)
    return images, labels, ids


def batch_ids(data_path, batch_size, mode):
    """The ids of each batch alone (the images of the train mode differ every run)."""
    return build_input(data_path, batch_size, mode)[2]
