"""Benchmark: the CIFAR-10 tutorial layout before and after migration, under TensorFlow 1.8.

usage: python bench/towers_bench.py [--steps N] [--rounds R]
Measures, in one run and alternating before/after each round: input-only throughput for 4
towers (examples/s, no model; the migrated input with both tower strategies), and training step
time (default strategy) on 4 virtual CPU devices (this machine has no GPU). Prints medians and after/before ratios. Needs the TF 1.8 venv
(scripts/make_tf_venv.sh 1.8).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from qmigrate import api  # noqa: E402
from qmigrate.engine import Options  # noqa: E402


def tf_python():
    return subprocess.check_output(["bash", os.path.join(ROOT, "scripts", "make_tf_venv.sh"), "1.8"],
                                   universal_newlines=True).strip().splitlines()[-1]


def run(python, *args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    out = subprocess.check_output([python] + [str(a) for a in args], env=env, universal_newlines=True,
                                  stderr=subprocess.DEVNULL)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    python = tf_python()
    work = tempfile.mkdtemp(prefix="qmigrate-bench-")
    try:
        data = os.path.join(work, "data")
        run(python, os.path.join(ROOT, "tests", "tf", "make_data.py"), data, "--learnable-cifar")
        before = os.path.join(work, "before")
        shutil.copytree(os.path.join(ROOT, "testdata", "towers", "tutorial", "before"), before)
        for name in ("cifar10.py", "cifar10_input.py"):
            shutil.copy(os.path.join(ROOT, "testdata", "towers", "common", name), before)
        after = os.path.join(work, "after")
        shutil.copytree(before, after)
        api.migrate([after], Options(), write=True)
        shared = os.path.join(work, "after_shared")
        shutil.copytree(before, shared)
        api.migrate([shared], Options(tower_strategy="shared-iterator"), write=True)
        throughput = {"queue": [], "shard": [], "shared-iterator": []}
        step = {"before": [], "after": []}
        for _ in range(options.rounds):
            for kind, program in (("queue", before), ("shard", after), ("shared-iterator", shared)):
                out = run(python, os.path.join(ROOT, "bench", "tf_input_throughput.py"), program, data, kind,
                          options.steps)
                throughput[kind].append(json.loads(out.strip().splitlines()[-1])["examples_per_second"])
            for label, program in (("before", before), ("after", after)):
                result = os.path.join(work, label + ".json")
                run(python, os.path.join(ROOT, "tests", "tf", "train_towers.py"), program, "cifar10_multi_gpu_train",
                    "cifar10", data, os.path.join(work, "w_" + label), options.steps, result, "batch_size=32")
                with open(result) as handle:
                    seconds = json.load(handle)["step_seconds"][10:]  # skip warm-up steps
                step[label].append(statistics.median(seconds))
        report = {
            "input_examples_per_second": {k: round(statistics.median(v)) for k, v in throughput.items()},
            "input_ratio_after_over_before": {
                kind: round(statistics.median(throughput[kind]) / statistics.median(throughput["queue"]), 2)
                for kind in ("shard", "shared-iterator")},
            "train_step_seconds": {k: round(statistics.median(v), 4) for k, v in step.items()},
            "train_step_ratio_after_over_before": round(statistics.median(step["after"])
                                                        / statistics.median(step["before"]), 2),
            "steps": options.steps, "rounds": options.rounds,
            "devices": "4 virtual CPU devices (device_count={'CPU': 4}); no GPU",
        }
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
