"""Input-only throughput of the tutorial layout's 4-tower input, queue vs tf.data (TF 1.x venv).

usage: tf_input_throughput.py PROGRAM_DIR DATA_DIR KIND STEPS   (KIND: queue | shard | shared-iterator)
Builds the input as the program's train script does for 4 towers (queue: one distorted_inputs()
and a prefetch_queue dequeued per tower; shard: one sharded distorted_inputs() per tower;
shared-iterator: every tower's distorted_inputs() takes batches from one iterator), runs STEPS
steps that fetch every tower's batch, and prints examples/s as JSON.
"""
import json
import sys
import time

import tensorflow as tf

TOWERS = 4


def tower_batches(cifar10, kind):
    """Each tower's image batch, built as the program's train script does for KIND."""
    if kind == "queue":
        images, labels, ids = cifar10.distorted_inputs()
        queue = tf.contrib.slim.prefetch_queue.prefetch_queue([images, labels, ids], capacity=2 * TOWERS)
        return [queue.dequeue()[0] for _ in range(TOWERS)]
    if kind == "shard":
        return [cifar10.distorted_inputs(num_shards=TOWERS, shard_index=i)[0] for i in range(TOWERS)]
    shared = {}  # as the migrated train script passes them: the dict and the prefetch queue's capacity
    return [cifar10.distorted_inputs(shared_iterators=shared, prefetch_batches=2 * TOWERS)[0] for _ in range(TOWERS)]


def main(program, data_dir, kind, steps):
    sys.path.insert(0, program)
    import cifar10

    tf.app.flags.FLAGS(["bench", "--data_dir=" + data_dir, "--batch_size=32"])
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        batches = tower_batches(cifar10, kind)
        fetch = [tf.reduce_sum(b) for b in batches]  # touch every batch without copying it out
        config = tf.ConfigProto(device_count={"CPU": TOWERS})
        with tf.Session(config=config) as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            for _ in range(20):  # warm up: fill queues and buffers
                sess.run(fetch)
            start = time.time()
            for _ in range(steps):
                sess.run(fetch)
            elapsed = time.time() - start
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    print(json.dumps({"kind": kind, "examples_per_second": steps * TOWERS * 32 / elapsed}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
