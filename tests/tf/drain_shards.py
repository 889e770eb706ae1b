"""Drain a synthesised sharded pipeline over Dataset slices of 0..SIZE-1, once per shard (TF 1.x, or 2 in graph mode).

usage: drain_shards.py STATEMENTS_JSON SIZE SHARDS OUT_JSON
STATEMENTS_JSON: the synthesised statements, over `examples`, `buffer_size`, `num_epochs`,
`num_shards`, `shard_index` and `tf`, ending in `batch = ...get_next()` (a tuple whose first
tensor holds the examples). Writes {"shards": [[every
example each shard gave, in order], ...]}.
"""
import json
import sys

import numpy as np
import tensorflow as tf

if tf.__version__.startswith("2."):
    tf = tf.compat.v1
    tf.disable_eager_execution()


def main(statements_json, size, shards, out_path):
    with open(statements_json) as handle:
        statements = json.load(handle)
    got = []
    for index in range(shards):
        with tf.Graph().as_default():
            scope = {"tf": tf, "examples": np.arange(size), "buffer_size": 100, "num_epochs": 3,
                     "num_shards": shards, "shard_index": index}
            exec("\n".join(statements), scope)
            examples = []
            with tf.Session() as sess:
                while True:
                    try:
                        examples.extend(sess.run(scope["batch"])[0].tolist())
                    except tf.errors.OutOfRangeError:
                        break
            got.append(examples)
    with open(out_path, "w") as handle:
        json.dump({"shards": got}, handle)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
