"""The coordinator also runs the program's own thread: it must stay after the migration."""
import threading

import tensorflow as tf


def logger(coord, sess, tensor):
    while not coord.should_stop():
        print(sess.run(tensor))
        coord.request_stop()


def main(files):
    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TextLineDataset)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(4))
    dataset = dataset.prefetch(1)
    lines = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = []
        extra = threading.Thread(target=logger, args=(coord, sess, lines))
        extra.start()
        coord.join(threads + [extra])
