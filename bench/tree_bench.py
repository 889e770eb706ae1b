"""Benchmark: qmigrate --check over a large legacy-style tree, against grep and tf_upgrade_v2.

usage: python bench/tree_bench.py [--files 2000] [--queue-percent 3] [--lines 300] [--tf2-python PATH]

Generates a tree of ordinary TF-era Python files (models, training loops, tf.data and numpy code
that says `tensorflow` and `batch` a lot), a few percent of them holding queue pipelines, and
measures in one run: files/s and peak memory of `qmigrate --check -j1` and `-j2`, `grep -rl` for
the queue API names (the floor), and TensorFlow's `tf_upgrade_v2` on the same tree when a TF 2
python is given (or found at ~/.cache/qmigrate/venv-tf2/bin/python). Also a tree where every
file holds queue code. Prints the numbers and ratios as JSON.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUEUE_FILE = os.path.join(ROOT, "testdata", "single", "cifar10_binary.before.py")
GREP_NAMES = "string_input_producer|shuffle_batch|train.batch|RecordReader|TextLineReader|start_queue_runners"

ORDINARY = '''"""Model and training utilities, module {index}."""
import numpy as np
import tensorflow as tf

BATCH_SIZE = {index}


def conv_block_{index}(inputs, filters, training):
    """A conv, batch norm and relu block."""
    net = tf.layers.conv2d(inputs, filters, 3, padding='same')
    net = tf.layers.batch_normalization(net, training=training)
    return tf.nn.relu(net)


def make_dataset_{index}(features, labels, batch_size=BATCH_SIZE):
    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    return dataset.shuffle(1000).batch(batch_size).repeat()
'''
FILLER = '''

def helper_{index}_{n}(values, scale={n}):
    """Normalise a batch of values (ordinary numpy code)."""
    values = np.asarray(values, dtype=np.float32)
    mean = values.mean(axis=0)
    std = values.std(axis=0) + 1e-6
    batch = (values - mean) / std
    return batch * scale
'''


def make_tree(folder, files, queue_percent, lines):
    os.makedirs(folder)
    with open(QUEUE_FILE) as handle:
        queue_source = handle.read()
    rng = random.Random(0)
    queue_files = set(rng.sample(range(files), int(files * queue_percent / 100.0)))
    for index in range(files):
        package = os.path.join(folder, "pkg%02d" % (index % 40))
        os.makedirs(package, exist_ok=True)
        if index in queue_files:
            text = queue_source
        else:
            text = ORDINARY.format(index=index)
            n = 0
            while text.count("\n") < lines:
                text += FILLER.format(index=index, n=n)
                n += 1
        with open(os.path.join(package, "module_%04d.py" % index), "w") as handle:
            handle.write(text)
    return len(queue_files)


_PEAK = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
         "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def measure(command):
    """(seconds, peak resident MB of the largest of the command's processes).

    A fresh wrapper process runs each command, so the peak is this command's alone.
    """
    start = time.time()
    out = subprocess.run([sys.executable, "-c", _PEAK] + command, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    elapsed = time.time() - start
    return elapsed, int(out.strip().splitlines()[-1]) / 1024.0


def tf2_python(given):
    candidate = given or os.path.expanduser("~/.cache/qmigrate/venv-tf2/bin/python")
    return candidate if os.path.exists(candidate) else None


def run_tree(folder, files, tf2):
    qmigrate = [sys.executable, "-m", "qmigrate"]
    report = {}
    for jobs in (1, 2):
        seconds, peak = measure(qmigrate + [folder, "--check", "-j", str(jobs)])
        report["qmigrate_j%d" % jobs] = {"files_per_second": round(files / seconds, 1), "seconds": round(seconds, 2),
                                         "peak_mb_per_process": round(peak, 1)}
    seconds, peak = measure(["grep", "-rlE", GREP_NAMES, folder])
    report["grep"] = {"files_per_second": round(files / seconds, 1), "seconds": round(seconds, 3)}
    if tf2:
        out = folder + "_upgraded"
        seconds, peak = measure([tf2, "-m", "tensorflow.tools.compatibility.tf_upgrade_v2_main", "--intree", folder,
                                 "--outtree", out, "--reportfile", out + ".txt"])
        report["tf_upgrade_v2"] = {"files_per_second": round(files / seconds, 1), "seconds": round(seconds, 2),
                                   "peak_mb": round(peak, 1)}
        report["qmigrate_j2_over_tf_upgrade_v2"] = round(
            report["qmigrate_j2"]["files_per_second"] / report["tf_upgrade_v2"]["files_per_second"], 1)
    report["qmigrate_j2_over_grep"] = round(
        report["qmigrate_j2"]["files_per_second"] / report["grep"]["files_per_second"], 4)
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--queue-percent", type=float, default=3)
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--all-queue-files", type=int, default=200)
    parser.add_argument("--tf2-python")
    options = parser.parse_args()
    tf2 = tf2_python(options.tf2_python)
    work = tempfile.mkdtemp(prefix="qmigrate-tree-")
    try:
        ordinary = os.path.join(work, "legacy_repo")
        queue_files = make_tree(ordinary, options.files, options.queue_percent, options.lines)
        all_queue = os.path.join(work, "all_queue")
        make_tree(all_queue, options.all_queue_files, 100, options.lines)
        report = {
            "tree": {"files": options.files, "queue_files": queue_files, "lines_per_file": options.lines},
            "ordinary_tree": run_tree(ordinary, options.files, tf2),
            "all_queue_tree": dict(run_tree(all_queue, options.all_queue_files, tf2),
                                   files=options.all_queue_files),
            "tf_upgrade_v2": "measured" if tf2 else "no TF 2 python found: pass --tf2-python",
            "machine": "%d cores" % os.cpu_count(),
        }
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
