"""A batching helper whose arms differ in shuffling and in keeping the last, smaller batch (the
training arm shuffles, the evaluation arm keeps a whole epoch), called with the caller's flag."""
import tensorflow as tf

_FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def _batches(xs, ids, min_queue_examples, batch_size, shuffle):
    return ids, xs


def inputs(files, batch_size, train=True, num_epochs=None):
    def parse_record(serialized):
        example = tf.parse_single_example(serialized, _FEATURES)
        return example['x'], example['id']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    if train:
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    if train:
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20, num_epochs))
    else:
        dataset = dataset.repeat(num_epochs)
    if not train:
        dataset = dataset.batch(batch_size)
    else:
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    xs, ids = dataset.make_one_shot_iterator().get_next()
    return _batches(xs, ids, 20, batch_size, shuffle=train)
