"""Per-record code in the arms of an if/else that batches in each arm: a training arm crops at
random, an evaluation arm computes an offset (no record) and crops there. The map function ends
with the same `if`, each arm holding its per-record statements and the assignments they read; the
`if` after the dataset's head keeps, in each arm, what reads no record ahead of the arm's tail."""
import tensorflow as tf


def cropped_batches(files, batch_size, training, width=2):
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        x = features['x']
        example_id = features['id']
        if training:
            # the first `width` features
            crop = x[:width]
            crop = tf.reshape(crop, [width])
        else:
            offset = (3 - width) // 2
            crop = tf.slice(x, [offset], [width]) * 2.0
        return crop, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    if training:
        dataset = dataset.repeat(1)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        crop_batch, id_batch = dataset.make_one_shot_iterator().get_next()
    else:
        dataset = dataset.repeat(1)
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        crop_batch, id_batch = dataset.make_one_shot_iterator().get_next()
    return crop_batch, id_batch


def flipped_batches(files, batch_size, flip):
    """Left as it is: the per-record code in the arms is chosen by a call, which the map function
    would make again."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    x = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
    if flip():
        x = tf.reverse(x, [0])
        x_batch = tf.train.batch([x], batch_size)
    else:
        x_batch = tf.train.batch([x], batch_size)
    return x_batch
