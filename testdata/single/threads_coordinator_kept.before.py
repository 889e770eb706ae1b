"""The coordinator also runs the program's own thread: it must stay after the migration."""
import threading

import tensorflow as tf


def logger(coord, sess, tensor):
    while not coord.should_stop():
        print(sess.run(tensor))
        coord.request_stop()


def main(files):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TextLineReader()
    _, line = reader.read(queue)
    lines = tf.train.batch([line], batch_size=4)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        extra = threading.Thread(target=logger, args=(coord, sess, lines))
        extra.start()
        coord.join(threads + [extra])
