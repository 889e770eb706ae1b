"""`allow_smaller_final_batch` given by a test made in Python (keep the last, partial batch only
when the input is finite), and the batch unpacked into the per-record names again after."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def _keep(length, max_length):
    """Which records to batch: all of them (a Python True) unless there is a maximum length."""
    if max_length is None:
        return True
    return tf.less_equal(length, max_length)


def batches(files, batch_size, keep_last=True):
    final_batch = (keep_last == True)  # noqa: E712
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    x, example_id = parsed['x'], parsed['id']
    data = [x, example_id]
    data = tf.train.batch(data, batch_size, allow_smaller_final_batch=final_batch)
    [x, example_id] = data
    x = x * 2.0
    return x, example_id


def bucketed(files, batch_size, num_epochs=1, keep_last=True, max_length=None):
    final_batch = keep_last and num_epochs is not None
    queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    length = tf.cast(parsed['id'] % 7, tf.int32)
    x, example_id = parsed['x'], parsed['id']
    keep = _keep(length, max_length)
    data = [x, example_id]
    length, data = tf.contrib.training.bucket_by_sequence_length(
        input_length=length, tensors=data, bucket_boundaries=[2, 4], batch_size=batch_size, keep_input=keep,
        allow_smaller_final_batch=final_batch, dynamic_pad=True)
    [x, example_id] = data
    return length, x, example_id


def computed_by_call(files, batch_size, options):
    """Left alone: the test calls a method, which could give another value when made again."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size, allow_smaller_final_batch=options.keep_last())
