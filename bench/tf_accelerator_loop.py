"""Drive the tutorial layout's 4-tower input like an accelerator would (TF 1.x venv).

usage: tf_accelerator_loop.py PROGRAM_DIR DATA_DIR KIND STEPS STEP_MS   (KIND: queue | shard | shared-iterator)
The model's step runs off the CPU (as on a GPU): each step fetches every tower's batch, then
sleeps STEP_MS. The epoch is the data's size and min_queue_examples 0.4 of it, as in the
tutorial (50,000 and 20,000). Prints JSON: seconds to the first batch (the fill), then the time
of every later step (fetch + sleep).
"""
import json
import os
import sys
import time

import tensorflow as tf

from tf_input_throughput import TOWERS, tower_batches  # beside this script


def main(program, data_dir, kind, steps, step_ms):
    sys.path.insert(0, program)
    import cifar10
    import cifar10_input

    files = [os.path.join(data_dir, "data_batch_%d.bin" % i) for i in range(1, 6)]
    cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = sum(os.path.getsize(f) for f in files) // 3073
    tf.app.flags.FLAGS(["bench", "--data_dir=" + data_dir, "--batch_size=32"])
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        batches = tower_batches(cifar10, kind)
        fetch = [tf.reduce_sum(b) for b in batches]  # touch every batch without copying it out
        config = tf.ConfigProto(device_count={"CPU": TOWERS})
        with tf.Session(config=config) as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            start = time.time()
            sess.run(fetch)
            first = time.time() - start
            seconds = []
            for _ in range(steps):
                start = time.time()
                sess.run(fetch)
                time.sleep(step_ms / 1000.0)
                seconds.append(time.time() - start)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    print(json.dumps({"first_batch": first, "step_seconds": seconds}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
