"""Benchmark: epoch boundaries of shuffled in-memory rows (run under the TF 1.8 venv).

usage: ~/.cache/qmigrate/venv-tf1.8/bin/python bench/slice_epoch_bench.py [ROWS] [EPOCHS]
`tf.train.slice_input_producer([images, labels])` (shuffle=True) batched by `tf.train.batch`, the
queue version, against what qmigrate emitted for it before (`from_tensor_slices(...).shuffle(rows)`
then `repeat()`) and what it emits now (`shuffle_and_repeat(rows)`). ROWS CIFAR-sized uint8 images
(32x32x3) with their ids, batches of 128 fetched with 5 ms of sleep between them (a model step),
EPOCHS epochs. Prints, per form, the median fetch and the longest after warm-up (ms), their ratio,
and whether every epoch held every row once, as JSON.
"""
import json
import sys
import time

import numpy as np
import tensorflow as tf

BATCH = 128


def build(form, images, labels):
    if form == "queue":
        image, label = tf.train.slice_input_producer([images, labels], shuffle=True)
        return tf.train.batch([image, label], BATCH)
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    if form == "shuffle_then_repeat":
        dataset = dataset.shuffle(len(labels)).repeat()
    else:
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(len(labels)))
    return dataset.apply(tf.contrib.data.batch_and_drop_remainder(BATCH)).prefetch(1).make_one_shot_iterator() \
        .get_next()


def measure(form, rows, epochs):
    images = np.random.RandomState(0).randint(0, 255, size=(rows, 32, 32, 3)).astype(np.uint8)
    labels = np.arange(rows, dtype=np.int32)
    with tf.Graph().as_default():
        batch = build(form, images, labels)
        times, ids = [], []
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            for _ in range(epochs * rows // BATCH):
                start = time.time()
                _, got = sess.run(batch)
                times.append(time.time() - start)
                ids.extend(got.tolist())
                time.sleep(0.005)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=2)
    warm = sorted(times[20:])
    whole = all(sorted(ids[e * rows:(e + 1) * rows]) == list(range(rows)) for e in range(len(ids) // rows))
    return {"median_ms": 1e3 * warm[len(warm) // 2], "longest_ms": 1e3 * warm[-1],
            "longest_over_median": warm[-1] / warm[len(warm) // 2], "epochs_whole": whole}


def main(argv):
    rows = int(argv[1]) if len(argv) > 1 else 50000
    epochs = int(argv[2]) if len(argv) > 2 else 3
    print(json.dumps({form: measure(form, rows, epochs)
                      for form in ("queue", "shuffle_then_repeat", "shuffle_and_repeat")}, indent=1))


if __name__ == "__main__":
    main(sys.argv)
