"""Per-record code that draws random numbers, in a program that sets a graph seed
(`tf.set_random_seed`). Before TF 1.15 a map function's graph does not take that seed: migrated
as it was, every run drew other numbers, and an op seed other numbers than the queue's. The map
function is given the program's seed first: every run draws the same, and an op-seeded draw the
same numbers as in the queue's per-record code."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def jitter(x):
    """A helper of the module that draws: the per-record code calls it."""
    return x + tf.random_uniform(tf.shape(x), maxval=0.1)


def jittered(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch([jitter(parsed['x']), parsed['id']], batch_size=batch_size)


def seeded_jitter(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, FEATURES)
    noise = tf.random_uniform([3], maxval=0.1, seed=3)
    return tf.train.batch([parsed['x'] + noise, parsed['id']], batch_size=batch_size)


def exact(files, batch_size):
    """Draws nothing: no seed is given."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch([parsed['x'] * 2.0, parsed['id']], batch_size=batch_size)


def nested_jitter(files, batch_size):
    """The helper that draws is defined in the function that builds the pipeline."""
    def shaken(x):
        return x + tf.random_uniform(tf.shape(x), maxval=0.1)

    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch([shaken(parsed['x']), parsed['id']], batch_size=batch_size)
