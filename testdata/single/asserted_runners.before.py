"""A script that asserts that its queue runners started (`assert runners, ...`). Migrated, no
runner is left to start and start_queue_runners would give an empty list: the assert, which
checked that the queues had runners, goes with the start."""
import json
import sys

import tensorflow as tf

FEATURES = {'id': tf.FixedLenFeature([], tf.int64)}


def read_ids(files):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read_up_to(queue, 8)
    ids = tf.parse_example(serialized, FEATURES)['id']
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        runners = tf.train.start_queue_runners(sess=sess, coord=coord)
        assert len(runners) > 0, 'started queue runners'
        found = []
        try:
            while True:
                found.extend(sess.run(ids).tolist())
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(runners)
    return found


if __name__ == '__main__':
    with open(sys.argv[1], 'w') as handle:
        json.dump(read_ids(sys.argv[2:]), handle)
