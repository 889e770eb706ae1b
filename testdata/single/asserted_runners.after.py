"""A script that asserts that its queue runners started (`assert runners, ...`). Migrated, no
runner is left to start and start_queue_runners would give an empty list: the assert, which
checked that the queues had runners, goes with the start."""
import json
import sys

import tensorflow as tf

FEATURES = {'id': tf.FixedLenFeature([], tf.int64)}


def read_ids(files):
    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(lambda filename: tf.data.TFRecordDataset(filename).batch(8))
    dataset = dataset.repeat(1)
    serialized = dataset.make_one_shot_iterator().get_next()
    ids = tf.parse_example(serialized, FEATURES)['id']
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        found = []
        try:
            while True:
                found.extend(sess.run(ids).tolist())
        except tf.errors.OutOfRangeError:
            pass
    return found


if __name__ == '__main__':
    with open(sys.argv[1], 'w') as handle:
        json.dump(read_ids(sys.argv[2:]), handle)
