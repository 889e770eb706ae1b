"""Input: one batch per set, each from its own batching of the shared record stream."""
import tensorflow as tf
import random

# One seed for the whole process, so that every shard shuffles the files the same way.
_FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)


def batches_per_set(files, batch_size, num_sets):
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, {
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        x = features['x'] * 2.0
        return x, features['id']

    x_lists, id_lists = [], []
    for i in range(num_sets):
        dataset = tf.data.Dataset.from_tensor_slices(files)
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64), seed=_FILE_ORDER_SEED)
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        # Each tower's shard: blocks of 64 records, before the per-record work.
        dataset = dataset.batch(64)
        dataset = dataset.shard(num_sets, i)
        dataset = dataset.apply(tf.contrib.data.unbatch())
        dataset = dataset.map(parse_record)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(20))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        xs, ids = dataset.make_one_shot_iterator().get_next()
        x_lists.append(xs)
        id_lists.append(ids)
    return x_lists, id_lists
