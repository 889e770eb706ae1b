"""Images and labels in parallel file lists, each read by its own reader, paired only by a shared
seed and batched together: left alone (a wrong pairing is worse than a queue) and reported."""
import tensorflow as tf

SEED = 66478


def paired_inputs(image_files, label_files, batch_size):
    image_queue = tf.train.string_input_producer(image_files, seed=SEED)
    label_queue = tf.train.string_input_producer(label_files, seed=SEED)
    image_reader = tf.WholeFileReader()
    label_reader = tf.TextLineReader()
    _, image_data = image_reader.read(image_queue)
    _, label_line = label_reader.read(label_queue)
    image = tf.image.decode_png(image_data, channels=1)
    label = tf.string_to_number(label_line, out_type=tf.int32)
    return tf.train.shuffle_batch([image, label], batch_size, capacity=200, min_after_dequeue=50)


def eval_inputs(image_files, batch_size):
    """Same seed, other function: not a pair."""
    def parse_record_3(data):
        image = tf.image.decode_png(data, channels=1)
        image.set_shape([20, 20, 1])
        return image

    dataset_3 = tf.data.Dataset.from_tensor_slices(image_files)
    dataset_3 = dataset_3.shuffle(tf.size(image_files, out_type=tf.int64), seed=SEED)
    dataset_3 = dataset_3.map(tf.read_file)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.repeat()
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    return dataset_3.make_one_shot_iterator().get_next()
