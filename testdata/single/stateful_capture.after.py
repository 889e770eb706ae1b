"""Per-record code that reads a tensor made outside it. A constant is captured by the map
function as it is; a random op (or a variable, a placeholder, a py_func) cannot be captured by a
one-shot iterator (TF 1.x: "does not support datasets that capture stateful objects"), and the
queue ran it once per record. A random draw only the per-record code reads moves into the map
function with it (record_draws.py: jittered_batches); a variable or a placeholder stays, and the
pipeline with it, with the line to move into the per-record code. So does one whose `with`
header, which would move into the map function, reads a random op."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def offset_batches(files, batch_size):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return parsed['x'] + offset, parsed['id']

    offset = tf.constant([1.0, 2.0, 3.0])

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def jittered_batches(files, batch_size):
    graph_seed = tf.get_default_graph().seed

    def parse_record_2(serialized):
        tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
        jitter = tf.random_uniform([3], maxval=0.01)
        scaled_jitter = jitter * 2.0
        parsed = tf.parse_single_example(serialized, _FEATURES)
        return parsed['x'] + scaled_jitter, parsed['id']

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def checked_batches(files, batch_size):
    """A random op read only by the header of a `with` around the per-record code, which would
    move into the map function with it: the same."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    noise = tf.random_uniform([], maxval=0.5)
    with tf.control_dependencies([tf.assert_less(noise, 1.0)]):
        x = tf.identity(parsed['x'])
    return tf.train.batch([x, parsed['id']], batch_size, allow_smaller_final_batch=True)


def counted_batches(files, batch_size):
    """A variable counted up in such a header, once per record: the same."""
    seen = tf.Variable(0, trainable=False)
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    with tf.control_dependencies([tf.assign_add(seen, 1)]):
        x = tf.identity(parsed['x'])
    batch = tf.train.batch([x, parsed['id']], batch_size, allow_smaller_final_batch=True)
    return batch, seen


def fed_size_batches(files):
    """A batch size fed at each step (a placeholder the batching reads): a one-shot iterator's
    dataset would take it once, by value, which TF 1.x refuses: the pipeline stays."""
    batch_size = tf.placeholder(tf.int32, [])
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    ids = tf.train.batch([parsed['id']], batch_size)
    return batch_size, ids


def tensor_size_batches(files):
    """A batch size that is an int32 tensor: tf.data takes int64 sizes: the pipeline stays."""
    batch_size = tf.constant(5)
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch([parsed['id']], batch_size)
