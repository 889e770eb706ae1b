"""Run an emitted shuffle-and-repeat stage on a counted range and record its reads (TF 1.x, or 2 in graph mode).

usage: shuffle_refill.py STAGE_JSON SIZE BUFFER EPOCHS OUT_JSON
STAGE_JSON: the synthesised statements (a list of source lines over `dataset`, `buffer_size`,
`num_epochs`, `tf`). The input is Dataset.range(SIZE) behind a map that counts its calls; the
stage's output is drained with no prefetch. Writes {"examples": [...], "reads": [reads when each
example came out]}: a shuffle that refills from empty at an epoch end shows reads standing still.
"""
import json
import sys

import numpy as np
import tensorflow as tf

if tf.__version__.startswith("2."):
    tf = tf.compat.v1
    tf.disable_eager_execution()


def main(stage_json, size, buffer_size, num_epochs, out_path):
    reads = [0]

    def count(index):
        reads[0] += 1
        return index

    with open(stage_json) as handle:
        stage = json.load(handle)
    dataset = tf.data.Dataset.range(size)
    # A py_func map runs when its consumer pulls, one element at a time: a count of pulls.
    dataset = dataset.map(lambda i: tf.reshape(tf.py_func(count, [i], tf.int64), []))
    scope = {"tf": tf, "dataset": dataset, "buffer_size": buffer_size, "num_epochs": num_epochs}
    exec("\n".join(stage), scope)
    dataset = scope["dataset"]
    if hasattr(tf.data, "make_one_shot_iterator"):
        element = tf.data.make_one_shot_iterator(dataset).get_next()
    else:
        element = dataset.make_one_shot_iterator().get_next()
    examples, seen = [], []
    with tf.Session() as sess:
        while True:
            try:
                examples.append(int(sess.run(element)))
            except tf.errors.OutOfRangeError:
                break
            seen.append(reads[0])
    with open(out_path, "w") as handle:
        json.dump({"examples": examples, "reads": seen}, handle)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
