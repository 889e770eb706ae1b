"""Each CIFAR-10 record split into its three colour planes, shuffled and batched as separate
examples (enqueue_many=True)."""
import os

import tensorflow as tf

PLANE_BYTES = 1024


def plane_batches(data_dir, batch_size, num_epochs=1):
    files = [os.path.join(data_dir, 'data_batch_%d.bin' % i) for i in range(1, 6)]
    def parse_record(value):
        record = tf.decode_raw(value, tf.uint8)
        planes = tf.reshape(record[1:], [3, PLANE_BYTES])
        labels = tf.fill([3], tf.cast(record[0], tf.int32))
        return planes, labels

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=1 + 3 * PLANE_BYTES))
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(50, num_epochs))
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
