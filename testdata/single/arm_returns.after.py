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


def parse_and_decode(serialized_example):
    features = tf.parse_single_example(serialized_example, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return features


def example_input(files, if_random, batch_size):
    def parse_record(serialized_example):
        features = parse_and_decode(serialized_example)
        x = features['x'] * 2.0
        example_id = features['id']
        return x, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)

    if if_random:
        min_queue_examples = 20
        print("Filling shuffle buffer with %d examples before starting to train." % min_queue_examples)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size, 2))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        x_batch, id_batch = dataset.make_one_shot_iterator().get_next()
        return x_batch, id_batch
    else:
        dataset = dataset.repeat(2)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        x_batch, id_batch = dataset.make_one_shot_iterator().get_next()
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
