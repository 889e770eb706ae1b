"""Benchmark: does the migrated input stall at epoch boundaries? The tutorial layout under TF 1.8.

usage: python bench/epoch_stall_bench.py [--records-per-file N] [--epochs E] [--rounds R] [--old-rev REV]
Drives the 4-tower input of testdata/towers/tutorial like an accelerator would (fetch every
tower's batch, then sleep for the model's step: 40 ms and 100 ms) across several epoch
boundaries (bench/tf_accelerator_loop.py), for: the queue program (before); the emission this
replaced, `shuffle(capacity)` then `repeat()` (the tutorial's golden at --old-rev); the current
migration; the current migration with prefetch(2); and the current migration with
`--tower-strategy shared-iterator` (one pipeline that every tower takes batches from). Prints,
per step time, the medians over rounds of: total time after the first batch and its ratio to the
queue's (target <= 1.0), the longest step after 5 warm-up steps over the median step (target
<= 2), and the first batch's wait (the buffer's first fill). Epochs are the data's size
(5 files x N records), with min_queue_examples 0.4 of it, as in the tutorial.
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

TOWERS, BATCH, WARM_UP = 4, 32, 5
# The last commit whose tutorial golden shuffled before repeat with the queue's capacity.
OLD_REV = "63fb6ad"


def tf_python():
    return subprocess.check_output(["bash", os.path.join(ROOT, "scripts", "make_tf_venv.sh"), "1.8"],
                                   universal_newlines=True).strip().splitlines()[-1]


def run(python, *args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.check_output([python] + [str(a) for a in args], env=env, universal_newlines=True,
                                   stderr=subprocess.DEVNULL)


def programs(work, old_rev):
    """{label: (program dir, kind)}: before, the old emission, the new one, the new one with prefetch(2)."""
    tutorial = os.path.join(ROOT, "testdata", "towers", "tutorial")
    before = os.path.join(work, "before")
    shutil.copytree(os.path.join(tutorial, "before"), before)
    for name in ("cifar10.py", "cifar10_input.py"):
        shutil.copy(os.path.join(ROOT, "testdata", "towers", "common", name), before)
    old = os.path.join(work, "old")
    os.makedirs(old)
    # The program's modules at old_rev (a module added to the golden since, such as its test, is not run).
    for name in ("cifar10.py", "cifar10_input.py", "cifar10_multi_gpu_train.py"):
        source = subprocess.check_output(["git", "-C", ROOT, "show", "%s:testdata/towers/tutorial/after/%s"
                                          % (old_rev, name)])
        with open(os.path.join(old, name), "wb") as handle:
            handle.write(source)
    new = os.path.join(work, "new")
    shutil.copytree(before, new)
    api.migrate([new], Options(), write=True)
    deeper = os.path.join(work, "new_prefetch2")
    shutil.copytree(new, deeper)
    path = os.path.join(deeper, "cifar10_input.py")
    with open(path) as handle:
        text = handle.read()
    assert "dataset.prefetch(1)" in text
    with open(path, "w") as handle:
        handle.write(text.replace("dataset.prefetch(1)", "dataset.prefetch(2)"))
    shared = os.path.join(work, "new_shared")
    shutil.copytree(before, shared)
    api.migrate([shared], Options(tower_strategy="shared-iterator"), write=True)
    return {"queue (before)": (before, "queue"), "shuffle().repeat() (old emission)": (old, "shard"),
            "shuffle_and_repeat (new)": (new, "shard"), "new, prefetch(2)": (deeper, "shard"),
            "new, --tower-strategy shared-iterator": (shared, "shared-iterator")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records-per-file", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--step-ms", type=float, nargs="+", default=[40.0, 100.0])
    parser.add_argument("--old-rev", default=OLD_REV)
    options = parser.parse_args()
    python = tf_python()
    work = tempfile.mkdtemp(prefix="qmigrate-stall-")
    try:
        data = os.path.join(work, "data")
        run(python, os.path.join(ROOT, "tests", "tf", "make_data.py"), data, "--learnable-cifar",
            options.records_per_file)
        epoch = 5 * options.records_per_file
        steps = options.epochs * epoch // (TOWERS * BATCH)
        runs = programs(work, options.old_rev)
        got = {(label, ms): [] for label in runs for ms in options.step_ms}
        for _ in range(options.rounds):
            for ms in options.step_ms:
                for label, (program, kind) in runs.items():  # alternating, so load changes hit all alike
                    out = run(python, os.path.join(ROOT, "bench", "tf_accelerator_loop.py"), program, data, kind,
                              steps, ms)
                    got[label, ms].append(json.loads(out.strip().splitlines()[-1]))
        report = {"epoch_examples": epoch, "towers": TOWERS, "batch_per_tower": BATCH, "steps": steps,
                  "rounds": options.rounds, "devices": "4 virtual CPU devices; the model step is a sleep"}
        for ms in options.step_ms:
            rows = {}
            for label in runs:
                totals = [sum(r["step_seconds"]) for r in got[label, ms]]
                spikes = [max(r["step_seconds"][WARM_UP:]) / statistics.median(r["step_seconds"][WARM_UP:])
                          for r in got[label, ms]]
                rows[label] = {"total_s": round(statistics.median(totals), 2),
                               "max_step_over_median": round(statistics.median(spikes), 2),
                               "first_batch_s": round(statistics.median(r["first_batch"] for r in got[label, ms]), 2)}
            queue = rows["queue (before)"]["total_s"]
            for row in rows.values():
                row["total_over_queue"] = round(row["total_s"] / queue, 3)
            report["step_%gms" % ms] = rows
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
