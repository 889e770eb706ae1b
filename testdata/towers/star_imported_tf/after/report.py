"""A script that star-imports a module outside the program too: what that module binds is not
known, so `tf` here is not proven TensorFlow, and its queue runners stay, saying why."""
import sys

from shared import *
from numpy import *
import records


def count(files):
    ids, _ = records.batches(files, batch_size=2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        threads = tf.train.start_queue_runners(sess=sess)
        n = 0
        try:
            while True:
                n += len(sess.run(ids))
        except tf.errors.OutOfRangeError:
            return n


if __name__ == '__main__':
    print(count(sys.argv[1:]))
