"""Batching shared by the input modules: the records come in as tensors, the batch goes out."""
import tensorflow as tf


def make_batches(features, example_id, batch_size, shuffle, min_queue_examples=20):
    """Batches one example at a time.

    Args:
        features: the features of one example.
        example_id: its id.
        batch_size: examples per batch.
        shuffle: whether to mix the examples first.
    """
    threads = 2
    if shuffle:
        return tf.train.shuffle_batch(
            [features, example_id],
            batch_size=batch_size,
            num_threads=threads,
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples)
    return tf.train.batch(
        [features, example_id],
        batch_size=batch_size,
        num_threads=threads,
        capacity=min_queue_examples + 3 * batch_size)


def write_examples(path, rows):
    """Writes (features, id) rows as TFRecords."""
    with tf.python_io.TFRecordWriter(path) as writer:
        for features, example_id in rows:
            example = tf.train.Example(features=tf.train.Features(feature={
                'x': tf.train.Feature(float_list=tf.train.FloatList(value=features)),
                'id': tf.train.Feature(int64_list=tf.train.Int64List(value=[example_id]))}))
            writer.write(example.SerializeToString())
