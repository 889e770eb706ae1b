"""Benchmark: what one step's fetch of 4 towers' batches costs, queue vs iterators (TF 1.x venv).

usage: ~/.cache/qmigrate/venv-tf1.8/bin/python bench/fetch_latency_bench.py [STEPS] [ROUNDS]
Why the sharded tower input stays about 1 % behind the queue in bench/epoch_stall_bench.py with
no epoch-end stall: it is the fetch. Every form gives 4 batches of 32 CIFAR-sized float images,
fetched together and reduced in the session, then a 10 ms sleep (the model's step, off the CPU):
- `queue`: one producer thread filling a FIFOQueue of batches (8 deep, like slim's
  prefetch_queue for 4 towers), dequeued 4 times;
- `iterators, constant`: 4 one-shot iterators over a constant, with `prefetch(1)` (the cost of the
  iterators and their GetNext alone);
- `iterators, map`: 4 one-shot iterators whose map makes each batch, with `prefetch(1)` (the
  sharded layout: each consumed batch wakes its own pipeline to make the next, 4 at once);
- `zip, map`: the same 4 maps zipped under one iterator (one pipeline makes them in turn).
Prints, per form, the median over rounds of the median fetch in milliseconds, as JSON.
"""
import json
import statistics
import sys
import time

import tensorflow as tf

TOWERS, SHAPE = 4, [32, 24, 24, 3]


def made():
    return tf.data.Dataset.from_tensors(0).repeat().map(lambda _: tf.random_uniform(SHAPE))


def batches(kind):
    if kind == "queue":
        queue = tf.FIFOQueue(2 * TOWERS, [tf.float32], shapes=[SHAPE])
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue([tf.random_uniform(SHAPE)])]))
        return [queue.dequeue() for _ in range(TOWERS)]
    if kind == "iterators, constant":
        constant = tf.constant(0.0, shape=SHAPE)
        return [tf.data.Dataset.from_tensors(constant).repeat().prefetch(1).make_one_shot_iterator().get_next()
                for _ in range(TOWERS)]
    if kind == "iterators, map":
        return [made().prefetch(1).make_one_shot_iterator().get_next() for _ in range(TOWERS)]
    zipped = tf.data.Dataset.zip(tuple(made() for _ in range(TOWERS)))
    return list(zipped.prefetch(1).make_one_shot_iterator().get_next())


def median_fetch_ms(kind, steps):
    with tf.Graph().as_default():
        fetch = [tf.reduce_sum(batch) for batch in batches(kind)]
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": TOWERS})) as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            for _ in range(20):  # warm up: fill the queue and the prefetch buffers
                sess.run(fetch)
            seconds = []
            for _ in range(steps):
                start = time.time()
                sess.run(fetch)
                seconds.append(time.time() - start)
                time.sleep(0.01)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    return 1000 * statistics.median(seconds)


def main(steps=300, rounds=3):
    kinds = ("queue", "iterators, constant", "iterators, map", "zip, map")
    got = {kind: [] for kind in kinds}
    for _ in range(rounds):
        for kind in kinds:  # alternating, so load changes hit all alike
            got[kind].append(median_fetch_ms(kind, steps))
    print(json.dumps({"tensorflow": tf.__version__, "steps": steps, "rounds": rounds,
                      "devices": "4 virtual CPU devices",
                      "median_fetch_ms": {kind: round(statistics.median(v), 3) for kind, v in got.items()}},
                     indent=2))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
