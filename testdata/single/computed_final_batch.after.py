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
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        x, example_id = parsed['x'], parsed['id']
        data = [x, example_id]
        return tuple(data)

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    if final_batch:
        dataset = dataset.batch(batch_size)
    else:
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    data = list(dataset.make_one_shot_iterator().get_next())
    [x, example_id] = data
    x = x * 2.0
    return x, example_id


def bucketed(files, batch_size, num_epochs=1, keep_last=True, max_length=None):
    final_batch = keep_last and num_epochs is not None
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, _FEATURES)
        length = tf.cast(parsed['id'] % 7, tf.int32)
        x, example_id = parsed['x'], parsed['id']
        keep = _keep(length, max_length)
        data = [x, example_id]
        return (length, (tuple(data))), tf.convert_to_tensor(keep, tf.bool)

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.filter(lambda element, keep: keep)
    dataset_2 = dataset_2.map(lambda element, keep: element)
    dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([2, 4], length), tf.int64)), lambda bucket, window: (window.padded_batch(batch_size, window.output_shapes) if final_batch else window.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, window.output_shapes))), batch_size))
    dataset_2 = dataset_2.prefetch(1)
    length, data = (lambda lengths, tensors: (lengths, list(tensors)))(*dataset_2.make_one_shot_iterator().get_next())
    [x, example_id] = data
    return length, x, example_id


def computed_by_call(files, batch_size, options):
    """Left alone: the test calls a method, which could give another value when made again."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    parsed = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch([parsed['x'], parsed['id']], batch_size, allow_smaller_final_batch=options.keep_last())
