"""A script whose queue of in-memory rows is filled by threads it starts by hand
(`runner.create_threads`), read in its own session loop; it writes the rows it read as JSON.

usage: array_queue_script.before.py OUT_JSON STEPS
"""
import json
import sys

import numpy as np
import tensorflow as tf

ROWS = 40
# Drawn once, at import: the same rows every run of this script.
samples = 10 * np.random.RandomState(7).randn(ROWS, 4) + 1
labels = np.arange(ROWS) % 3

queue = tf.FIFOQueue(capacity=16, dtypes=[tf.float32, tf.int32], shapes=[[4], []])
enqueue_op = queue.enqueue_many([samples, labels])
sample, label = queue.dequeue()

# Four threads run the enqueue op.
runner = tf.train.QueueRunner(queue, [enqueue_op] * 4)

if __name__ == "__main__":
    out_path, steps = sys.argv[1], int(sys.argv[2])
    read = []
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = runner.create_threads(sess, coord=coord, start=True)
        try:
            for step in range(steps):
                if coord.should_stop():
                    break
                value, kind = sess.run([sample, label])
                read.append([value.tolist(), int(kind), str(value.dtype), str(kind.dtype)])
        except Exception as e:
            coord.request_stop(e)
        finally:
            coord.request_stop()
            coord.join(threads)
    with open(out_path, "w") as handle:
        json.dump(read, handle)
