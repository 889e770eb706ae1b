"""Benchmark: ways to make a batch of one, on large elements (run under the TF 1.8 venv).

usage: ~/.cache/qmigrate/venv-tf1.8/bin/python bench/batch_of_one_bench.py [ELEMENTS] [ROUNDS]
Elements are 1024x1024 float32 (4 MB), as a co-occurrence matrix's rows; each form is fed by the
same dataset and its batches reduced in the session, ELEMENTS per round, medians over ROUNDS.
Compared: `tf.train.batch(batch_size=1)` (the queue), `batch(1)`,
`batch_and_drop_remainder(1)` (what qmigrate emitted before) and `map(expand_dims)` (what it
emits now). Prints batches/s and the ratio to the queue as JSON; every form must give [1, ...].
"""
import json
import statistics
import sys
import time

import tensorflow as tf


def source(count):
    return tf.data.Dataset.range(count).map(lambda i: tf.fill([1024, 1024], tf.cast(i, tf.float32))).repeat()


def measure(build, elements, rounds):
    rates = []
    for _ in range(rounds):
        with tf.Graph().as_default():
            batch = build(elements)
            assert batch.shape.as_list()[1:] == [1024, 1024]
            fetch = tf.reduce_sum(batch)
            with tf.Session() as sess:
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                for _ in range(10):  # warm up
                    sess.run(fetch)
                start = time.time()
                for _ in range(elements):
                    sess.run(fetch)
                rates.append(elements / (time.time() - start))
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=2)
    return statistics.median(rates), batch.shape.as_list()[0]


def dataset_form(stage):
    def build(elements):
        dataset = stage(source(elements)).prefetch(1)
        return dataset.make_one_shot_iterator().get_next()
    return build


def queue_form(elements):
    element = source(elements).make_one_shot_iterator().get_next()
    return tf.train.batch([element], batch_size=1, capacity=32)


def main(elements=200, rounds=3):
    forms = [
        ("tf.train.batch(batch_size=1) (queue)", queue_form),
        ("batch(1)", dataset_form(lambda d: d.batch(1))),
        ("batch_and_drop_remainder(1)", dataset_form(lambda d: d.apply(tf.contrib.data.batch_and_drop_remainder(1)))),
        ("map(expand_dims)", dataset_form(lambda d: d.map(lambda t: tf.expand_dims(t, 0)))),
    ]
    report = {}
    for name, build in forms:
        rate, first_dim = measure(build, elements, rounds)
        report[name] = {"batches_per_second": round(rate, 1), "static_batch_dim": first_dim}
    queue = report[forms[0][0]]["batches_per_second"]
    for row in report.values():
        row["over_queue"] = round(row["batches_per_second"] / queue, 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main(*[int(a) for a in sys.argv[1:3]])
