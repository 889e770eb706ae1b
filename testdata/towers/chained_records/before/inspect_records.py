"""Prints the first examples of some files, as the reader gives them."""
import sys

import tensorflow as tf

from data import records


def first_ids(files, count=5):
    x, example_id = records.read(files, num_epochs=1)
    ids = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        tf.train.start_queue_runners(sess=sess)
        for _ in range(count):
            ids.append(int(sess.run(example_id)))
    return ids


if __name__ == '__main__':
    print(first_ids(sys.argv[1:]))
