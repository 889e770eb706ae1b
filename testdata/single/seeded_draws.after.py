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
    graph_seed = tf.get_default_graph().seed

    def parse_record(serialized):
        tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
        parsed = tf.parse_single_example(serialized, FEATURES)
        return jitter(parsed['x']), parsed['id']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def seeded_jitter(files, batch_size):
    graph_seed_2 = tf.get_default_graph().seed

    def parse_record_2(serialized):
        tf.set_random_seed(graph_seed_2)  # the program's (TF < 1.15 gives this graph none)
        parsed = tf.parse_single_example(serialized, FEATURES)
        noise = tf.random_uniform([3], maxval=0.1, seed=3)
        return parsed['x'] + noise, parsed['id']

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def exact(files, batch_size):
    """Draws nothing: no seed is given."""
    def parse_record_3(serialized):
        parsed = tf.parse_single_example(serialized, FEATURES)
        return parsed['x'] * 2.0, parsed['id']

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    return list(dataset_3.make_one_shot_iterator().get_next())


def nested_jitter(files, batch_size):
    """The helper that draws is defined in the function that builds the pipeline."""
    def shaken(x):
        return x + tf.random_uniform(tf.shape(x), maxval=0.1)

    graph_seed_3 = tf.get_default_graph().seed

    def parse_record_4(serialized):
        tf.set_random_seed(graph_seed_3)  # the program's (TF < 1.15 gives this graph none)
        parsed = tf.parse_single_example(serialized, FEATURES)
        return shaken(parsed['x']), parsed['id']

    dataset_4 = tf.data.Dataset.from_tensor_slices(files)
    dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
    dataset_4 = dataset_4.map(parse_record_4)
    dataset_4 = dataset_4.repeat(1)
    dataset_4 = dataset_4.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_4 = dataset_4.prefetch(1)
    return list(dataset_4.make_one_shot_iterator().get_next())
