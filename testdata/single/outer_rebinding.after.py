"""Per-record code that rebinds names bound before it: a default set outside the per-record code, or
a parameter, replaced for each record when a condition holds."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def weighted_inputs(files, batch_size, offset=None, weighted=True, num_epochs=1):
    """`weight = None` stays outside; each record may replace it. `offset`, when the caller gives
    none, becomes the record's own minimum."""
    def parse_record(serialized):
        offset_2 = offset
        weight_2 = weight
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x = parsed['x']
        # A weight for every third example only when asked.
        if weighted:
            weight_2 = tf.to_float(parsed['id'] % 3) + 1.0
        if weight_2 is not None:
            x = x * weight_2
        if offset_2 is None:
            offset_2 = tf.reduce_min(x)
        x = x - offset_2
        return x, parsed['id']

    weight = None

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def fixed_offset(files):
    return weighted_inputs(files, 4, offset=0.5)


def weight_returned(files, batch_size):
    """The weight the per-record code sets is also returned: it stays a queue pipeline."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    weight = None
    if batch_size > 1:
        weight = tf.to_float(parsed['id'])
    ids = tf.train.batch([parsed['id'] * 2], batch_size=batch_size)
    return ids, weight


def stepped_inputs(files, batch_size, step):
    """The per-record code reads `step`, which a caller below gives a variable: it stays."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x = parsed['x'] * tf.to_float(step)
    return tf.train.batch([x], batch_size=batch_size)


def train_batches(files):
    step = tf.train.get_or_create_global_step()
    return stepped_inputs(files, 8, step)
