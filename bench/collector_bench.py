"""Benchmark: the cyclic collector's cost in a run, with the default thresholds and with
qmigrate's (memory.RUN_THRESHOLDS), alternating within one run of this script.

usage: python bench/collector_bench.py [--files 40] [--legacy-percent 100] [--rounds 3] [--jobs 1]
Each round migrates (check mode) one generated tree (bench/link_bench.py's tower modules and
ordinary modules) in a fresh process both ways, in turn. Prints per-way medians as JSON: CPU
seconds of the run (all its processes), the collector's own seconds and full collections (in the
process that runs the analysis: use --jobs 1 for those), peak resident MB, and the ratio of
qmigrate's thresholds to the defaults.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from link_bench import make_tree  # noqa: E402  (a sibling script)

_RUN = r"""
import gc, json, resource, sys, time
from qmigrate import api, memory
if sys.argv[1] == "default":
    memory.RUN_THRESHOLDS = gc.get_threshold()
spent, full, started = [0.0], [0], [0.0]
def timed(phase, info):
    if phase == "start":
        started[0] = time.process_time()
    else:
        spent[0] += time.process_time() - started[0]
        full[0] += info["generation"] == 2
gc.callbacks.append(timed)
api.migrate([sys.argv[2]], jobs=int(sys.argv[3]))
own = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu_s": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
                  "collector_s": spent[0], "full_collections": full[0],
                  "peak_mb": max(own.ru_maxrss, children.ru_maxrss) / 1024.0}))
"""


def run(way, folder, jobs):
    out = subprocess.run([sys.executable, "-c", _RUN, way, folder, str(jobs)], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True, cwd=os.path.dirname(HERE)).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--legacy-percent", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="qmigrate-collector-")
    try:
        folder = os.path.join(work, "tree")
        legacy = make_tree(folder, options.files, options.legacy_percent)
        rows = {"default": [], "qmigrate": []}
        for _ in range(options.rounds):
            for way in rows:
                rows[way].append(run(way, folder, options.jobs))
        report = {"files": options.files, "legacy_files": legacy, "jobs": options.jobs, "rounds": options.rounds}
        for way, measured in rows.items():
            report[way] = {key: round(statistics.median(row[key] for row in measured), 2) for key in measured[0]}
        report["cpu_qmigrate_over_default"] = round(report["qmigrate"]["cpu_s"] / report["default"]["cpu_s"], 3)
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
