"""Benchmark: where the shuffle of a queue of serialized records goes (run under the TF 1.8 venv).

usage: ~/.cache/qmigrate/venv-tf1.8/bin/python bench/record_shuffle_bench.py [BUFFER] [BATCHES]
A RandomShuffleQueue of the records as read, before their parsing (Inception's queue of serialized
examples), held BUFFER short strings. Each order runs in a process of its own (peak RSS is per
process): `shuffle_then_map` (what qmigrate emits: the buffer holds what the queue held) and
`map_then_shuffle` (what it emitted before: the buffer holds decoded records, here 768 KB each).
BATCHES batches of 8 are drawn. Prints peak RSS and seconds per order, and their ratios, as JSON.
"""
import json
import resource
import subprocess
import sys
import time


def run(order, buffer, batches):
    import tensorflow as tf

    records = tf.data.Dataset.range(10 ** 6).map(tf.as_string)  # the serialized records

    def parse(record):  # a decoded image: 256x256x3 float32
        return tf.fill([256, 256, 3], tf.string_to_number(record, tf.float32))

    shuffle = tf.contrib.data.shuffle_and_repeat(buffer)
    if order == "shuffle_then_map":
        dataset = records.apply(shuffle).map(parse, num_parallel_calls=2)
    else:
        dataset = records.map(parse, num_parallel_calls=2).apply(shuffle)
    batch = dataset.batch(8).prefetch(1).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        start = time.time()
        for _ in range(batches):
            sess.run(batch)
        seconds = time.time() - start
    return {"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, "seconds": seconds}


def main(argv):
    buffer = int(argv[1]) if len(argv) > 1 else 2000
    batches = int(argv[2]) if len(argv) > 2 else 300
    if len(argv) > 3:  # a child: one order
        print(json.dumps(run(argv[3], buffer, batches)))
        return
    found = {}
    for order in ("map_then_shuffle", "shuffle_then_map"):
        out = subprocess.run([sys.executable, __file__, str(buffer), str(batches), order], check=True,
                             stdout=subprocess.PIPE, universal_newlines=True).stdout
        found[order] = json.loads(out.strip().splitlines()[-1])
    new, old = found["shuffle_then_map"], found["map_then_shuffle"]
    found["ratio_new_to_old"] = {"peak_rss": new["peak_rss_mb"] / old["peak_rss_mb"],
                                 "seconds": new["seconds"] / old["seconds"]}
    print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main(sys.argv)
