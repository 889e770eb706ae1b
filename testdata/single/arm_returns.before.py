"""An input function in the shape of the TFRecord image tutorials: a reader helper, per-record code,
then an if/else that shuffles or not, each arm batching and returning its batch, the shuffling
arm setting its thread count first. Each arm keeps its return after the iterator's next batch,
and the map made before the if/else takes the arm's thread count as the number it was. A second
function whose arm reads a per-record tensor after its batching stays as it is, with the reason."""
import tensorflow as tf


def read_and_decode(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized_example = reader.read(filename_queue)
    features = tf.parse_single_example(serialized_example, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return features


def example_input(files, if_random, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    features = read_and_decode(filename_queue)
    x = features['x'] * 2.0
    example_id = features['id']

    if if_random:
        min_queue_examples = 20
        print("Filling queue with %d examples before starting to train." % min_queue_examples)
        num_preprocess_threads = 2
        x_batch, id_batch = tf.train.shuffle_batch(
            [x, example_id],
            batch_size=batch_size,
            num_threads=num_preprocess_threads,
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples)
        return x_batch, id_batch
    else:
        x_batch, id_batch = tf.train.batch([x, example_id], batch_size=batch_size, num_threads=1)
        return x_batch, id_batch


def leaky_input(files, if_random, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    features = read_and_decode(filename_queue)
    example_id = features['id']
    if if_random:
        id_batch = tf.train.shuffle_batch([example_id], batch_size, 40, 10)
        return id_batch, example_id
    else:
        id_batch = tf.train.batch([example_id], batch_size)
        return id_batch, example_id
