"""Images and labels in parallel file lists, each read by its own reader, paired only by a shared
seed and batched together: zipped, each chain keeping that seed (two tf.data shuffles of the same
size and seed give the same permutations, as the two producers did), and the shared seed reported."""
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
    queue = tf.train.string_input_producer(image_files, seed=SEED)
    reader = tf.WholeFileReader()
    _, data = reader.read(queue)
    image = tf.image.decode_png(data, channels=1)
    image.set_shape([20, 20, 1])
    return tf.train.batch([image], batch_size)
