"""`qmigrate verify`: run a legacy input function and its migration on the user's data, and compare.

Each side runs in its own subprocess under the user's Python with TensorFlow (`verify_runner.py`,
which imports nothing of ours). This module prepares the two sides (the migration is computed in
memory with `api.migrate`, written only to a temporary folder), runs them side by side, and compares
what they returned and the examples they gave. It runs the user's code; it writes none of the
user's files (bytecode caches are turned off in the subprocesses).

Exit codes: 0 equivalent, 1 differences found, 2 a side could not be prepared, built or run.
"""
import ast
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from typing import List, Optional

from qmigrate import api
from qmigrate.diagnostics import Status
from qmigrate.engine import Options
from qmigrate.targets import DEFAULT_TARGET, TARGETS

EQUIVALENT, DIFFERENT, FAILED = 0, 1, 2
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verify_runner.py")
ORDER_EXAMPLES = 1000  # examples of the second run that tells whether the order is shuffled (or 10 batches)
ORDER_TOLERANCE = 32  # positions an example may move by thread races alone (not a shuffle)
ROUNDS = 5  # throughput: the median of this many rounds


class VerifyError(Exception):
    """The request cannot be carried out (bad target, no TensorFlow, migration failed)."""


@dataclass(frozen=True)
class Request:
    path: str
    function: str
    args: str = ""
    python: Optional[str] = None
    batches: int = 100
    towers: int = 1
    target_tf: str = DEFAULT_TARGET
    against: Optional[str] = None
    keep_random: bool = False
    timeout: float = 600.0


def parse_target(text: str):
    """'input.py:distorted_inputs' -> (path, function)."""
    path, sep, function = text.rpartition(":")
    if not sep or not path or not function.isidentifier():
        raise VerifyError("give the function as FILE.py:FUNCTION, e.g. input.py:distorted_inputs")
    if not os.path.isfile(path):
        raise VerifyError("%s: no such file" % path)
    return path, function


def check_args(args: str) -> None:
    """The keyword arguments must read as Python (they are evaluated in the user's interpreter)."""
    try:
        call = ast.parse("f(%s)" % args, mode="eval").body
    except SyntaxError as error:
        raise VerifyError("--args is not Python keyword arguments: %s" % error.msg)
    if call.args:
        raise VerifyError("--args takes keyword arguments only (name=value, ...)")


def find_python() -> str:
    """The first `python` (or `python3`) on PATH that imports tensorflow."""
    tried = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        for name in ("python", "python3"):
            candidate = os.path.join(folder, name)
            if not os.access(candidate, os.X_OK) or os.path.realpath(candidate) in tried:
                continue
            tried.append(os.path.realpath(candidate))
            done = subprocess.run([candidate, "-c", "import tensorflow"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=_env())
            if done.returncode == 0:
                return candidate
    raise VerifyError("no python on PATH imports tensorflow; give one with --python")


def _env():
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


def migrated_folder(request: Request, scratch: str) -> str:
    """A folder holding the migrated modules of the file's folder (computed in memory, written here)."""
    folder = os.path.dirname(os.path.abspath(request.path))
    files = sorted(glob.glob(os.path.join(folder, "*.py")))
    results = api.migrate(files, Options(target=TARGETS[request.target_tf]))
    mine = os.path.abspath(request.path)
    for result in results:
        if os.path.abspath(result.path) == mine:
            if result.status is Status.FAILED:
                raise VerifyError("qmigrate cannot migrate %s: %s" % (request.path, result.error))
            if not result.changed:
                reasons = "; ".join("%s %s" % (d.code, d.message) for d in result.diagnostics) or "no queue code"
                raise VerifyError("qmigrate leaves %s unchanged (%s): nothing to verify" % (request.path, reasons))
    out = os.path.join(scratch, "migrated")
    os.makedirs(out)
    for result in results:
        if result.changed:
            with open(os.path.join(out, os.path.basename(result.path)), "wb") as handle:
                handle.write(result.new_source)
    return out


def _spec(request: Request, module: str, folders: List[str], legacy: bool) -> dict:
    towers = 1 if legacy else request.towers
    return {
        "module": module, "name": os.path.splitext(os.path.basename(request.path))[0],
        "path": folders, "function": request.function, "args": request.args,
        # With towers, the migrated side runs every tower in each step: as many examples in all.
        "batches": request.batches if legacy else -(-request.batches // towers),
        "towers": towers, "shard": "auto" if towers > 1 else False,
        "deterministic": not request.keep_random, "rounds": ROUNDS,
        "order_batches": 0 if request.keep_random else request.batches, "order_examples": ORDER_EXAMPLES,
        "probe": towers > 1 and not request.keep_random,
        "probe_batches": 10 * request.batches,
    }


def _start(python: str, spec: dict, scratch: str, label: str):
    spec_path = os.path.join(scratch, label + ".spec.json")
    out_path = os.path.join(scratch, label + ".out.json")
    with open(spec_path, "w") as handle:
        json.dump(spec, handle)
    log = open(os.path.join(scratch, label + ".log"), "w+")
    process = subprocess.Popen([python, RUNNER, spec_path, out_path], stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, env=_env())
    return process, out_path, log


def _finish(started, timeout: float) -> dict:
    process, out_path, log = started
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return {"ok": False, "stage": "run", "error": "did not finish within %d s (--timeout)" % timeout}
    try:
        with open(out_path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        log.seek(0)
        tail = "\n".join(log.read().rstrip().splitlines()[-12:])
        return {"ok": False, "stage": "start", "error": "exited %d before reporting:\n%s" % (process.returncode, tail)}
    finally:
        log.close()


def verify(request: Request) -> dict:
    """Run both sides and compare them: the report (see `compare`); raises VerifyError on bad requests."""
    if request.target_tf not in TARGETS:
        raise VerifyError("--target-tf must be one of %s" % ", ".join(sorted(TARGETS)))
    check_args(request.args)
    python = request.python or find_python()
    scratch = tempfile.mkdtemp(prefix="qmigrate-verify-")
    try:
        original = os.path.dirname(os.path.abspath(request.path))
        if request.against:
            against = os.path.abspath(request.against)
            migrated_module, folders = against, [os.path.dirname(against), original]
        else:
            out = migrated_folder(request, scratch)
            migrated_module = os.path.join(out, os.path.basename(request.path))
            folders = [out, original]
        legacy = _start(python, _spec(request, os.path.abspath(request.path), [original], True), scratch, "legacy")
        migrated = _start(python, _spec(request, migrated_module, folders, False), scratch, "migrated")
        sides = {"legacy": _finish(legacy, request.timeout), "migrated": _finish(migrated, request.timeout)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report = compare(sides["legacy"], sides["migrated"], request)
    report["python"] = python
    return report


# ---- comparison ---------------------------------------------------------------------------------

def _check(report, name, same, detail):
    report["checks"].append({"check": name, "status": "same" if same else "different", "detail": detail})


def _unchecked(report, name, detail):
    report["checks"].append({"check": name, "status": "not checked", "detail": detail})


def _stream(side) -> list:
    return [example for tower in side["towers"] for example in tower]


def _complete(side) -> bool:
    """Whether a side's examples hold its whole data set: it ended, or gave every example twice on
    average (a shuffle buffer spanning epochs cannot then hide an example)."""
    stream = _stream(side)
    return side["ended"] or (bool(stream) and len(stream) >= 2 * len(set(stream)))


def compare(legacy: dict, migrated: dict, request: Request) -> dict:
    """{"result": "equivalent"|"different"|"failed", "checks": [...], "sides": ..., "warnings": [...]}"""
    report = {"target": "%s:%s" % (request.path, request.function), "checks": [], "warnings": [],
              "migrated_from": request.against or "qmigrate --target-tf %s" % request.target_tf,
              "sides": {}, "throughput": None}
    for label, side in (("legacy", legacy), ("migrated", migrated)):
        if side.get("ok"):
            stream = _stream(side)
            report["sides"][label] = {"ok": True, "tf_version": side.get("tf_version"), "kind": side["kind"],
                                      "batches": side["batches"], "examples": len(stream),
                                      "distinct": len(set(stream)), "ended": side["ended"],
                                      "towers": len(side["towers"])}
        else:
            report["sides"][label] = {"ok": False, "stage": side.get("stage"), "error": side.get("error")}
    if not (legacy.get("ok") and migrated.get("ok")):
        report["result"] = "failed"
        return report

    patched = sorted(set(legacy["patched"]) | set(migrated["patched"]))
    if patched:
        report["warnings"].append("random ops made deterministic in both (crops central, flips and colour "
                                  "changes identity, random values constant): %s; --keep-random to run them "
                                  "as written" % ", ".join(patched))
    _compare_outputs(report, legacy, migrated)
    if request.keep_random:
        _compare_counts(report, legacy, migrated)
        _unchecked(report, "order", "--keep-random: examples differ from run to run")
    else:
        _compare_examples(report, legacy, migrated)
        _compare_order(report, legacy, migrated)
    if request.towers > 1:
        _compare_towers(report, legacy, migrated, request)
    rates = {label: statistics.median(side["rates"]) if side["rates"] else None
             for label, side in (("legacy", legacy), ("migrated", migrated))}
    report["throughput"] = {"legacy": rates["legacy"], "migrated": rates["migrated"],
                            "rounds": min(len(legacy["rates"]), len(migrated["rates"])),
                            "ratio": rates["migrated"] / rates["legacy"]
                            if rates["legacy"] and rates["migrated"] else None}
    different = any(check["status"] == "different" for check in report["checks"])
    report["result"] = "different" if different else "equivalent"
    report["not_checked"] = [check["check"] for check in report["checks"] if check["status"] == "not checked"]
    return report


def _compare_outputs(report, legacy, migrated):
    _check(report, "structure", legacy["structure"] == migrated["structure"],
           legacy["structure"] if legacy["structure"] == migrated["structure"]
           else "legacy %s, migrated %s" % (legacy["structure"], migrated["structure"]))
    if len(migrated["tower_structures"]) > 1:
        _check(report, "structure", False, "the towers return different structures: %s"
               % ", ".join(migrated["tower_structures"]))
    old, new = legacy["components"], migrated["components"]
    if legacy["structure"] != migrated["structure"]:
        return
    for key, name in (("dtype", "dtypes"), ("static_shape", "static shapes")):
        mismatched = ["%s: legacy %s, migrated %s" % (a["name"], a[key], b[key])
                      for a, b in zip(old, new) if a[key] != b[key]]
        _check(report, name, not mismatched,
               "; ".join(mismatched) or ", ".join("%s %s" % (a["name"], a[key]) for a in old))
    shapes = {}
    for label, side in (("legacy", legacy), ("migrated", migrated)):
        shapes[label] = Counter(json.dumps(batch) for batch in side["batch_shapes"])
    only_old = sorted(set(shapes["legacy"]) - set(shapes["migrated"]))
    only_new = sorted(set(shapes["migrated"]) - set(shapes["legacy"]))
    detail = []
    if only_old:
        detail.append("only legacy gives batches of shape %s" % ", ".join(only_old))
    if only_new:
        detail.append("only migrated gives batches of shape %s (%s)" % (
            ", ".join(only_new), ", ".join("%d of them" % shapes["migrated"][s] for s in only_new)))
    _check(report, "batch shapes", not detail, "; ".join(detail) or ", ".join(sorted(shapes["legacy"])))


def _ends(report, legacy, migrated):
    """Whether both sides end (a finite number of epochs) after the same number of batches."""
    if legacy["ended"] == migrated["ended"]:
        return True
    finite, endless = ("legacy", "migrated") if legacy["ended"] else ("migrated", "legacy")
    sides = {"legacy": legacy, "migrated": migrated}
    _check(report, "end of data", False, "%s ends after %d batches (%d examples); %s gave all %d batches "
           "asked for without ending" % (finite, sides[finite]["batches"], len(_stream(sides[finite])), endless,
                                         sides[endless]["batches"]))
    return False


def _compare_counts(report, legacy, migrated):
    if not _ends(report, legacy, migrated):
        return
    if legacy["ended"]:
        old, new = len(_stream(legacy)), len(_stream(migrated))
        _check(report, "examples", old == new, "legacy %d examples, migrated %d (counts only: --keep-random)"
               % (old, new))
    else:
        _unchecked(report, "examples", "--keep-random and neither side ends: only shapes are compared")


def _compare_examples(report, legacy, migrated):
    old, new = Counter(_stream(legacy)), Counter(_stream(migrated))
    ends_alike = _ends(report, legacy, migrated)
    if ends_alike and legacy["ended"]:
        if old == new:
            _check(report, "examples", True, "the same %d examples (%d distinct)" % (sum(old.values()), len(old)))
            return
        _check(report, "examples", False, _multiset_difference(old, new) + _hint(old, new))
        return
    if not (_complete(legacy) and _complete(migrated)):
        _unchecked(report, "examples", "not every example was seen twice in %d batches (legacy %d examples, %d "
                   "distinct; migrated %d, %d distinct): give more --batches" % (
                       legacy["batches"], sum(old.values()), len(old), sum(new.values()), len(new)))
        return
    missing, extra = set(old) - set(new), set(new) - set(old)
    detail = "the same %d distinct examples (sets compared: the data repeats)" % len(old)
    if missing or extra:
        detail = "distinct examples: legacy %d, migrated %d; %d missing from migrated, %d extra in migrated" % (
            len(old), len(new), len(missing), len(extra))
    _check(report, "examples", not (missing or extra), detail + (_hint(old, new) if missing or extra else ""))


def _hint(old, new) -> str:
    if set(old) & set(new):
        return ""
    return (" (no example is common to both: random ops reached other than through the tf.* names verify "
            "replaces, e.g. random_ops.random_uniform, would do this; --keep-random compares counts only)")


def _multiset_difference(old: Counter, new: Counter) -> str:
    """How two finite drains differ: examples missing, extra, and seen a different number of times."""
    missing = [k for k in old if k not in new]
    extra = [k for k in new if k not in old]
    changed = Counter((old[k], new[k]) for k in old if k in new and old[k] != new[k])
    parts = ["legacy %d examples (%d distinct), migrated %d (%d distinct)" % (
        sum(old.values()), len(old), sum(new.values()), len(new))]
    for keys, side, words in ((missing, old, "missing from migrated"), (extra, new, "extra in migrated")):
        occurrences = sum(side[k] for k in keys)
        if occurrences:
            parts.append("%d %s" % (occurrences, words) + (" (%d distinct)" % len(keys) if len(keys) != occurrences
                                                            else ""))
    for words, test in (("seen fewer times in migrated", lambda a, b: b < a), ("duplicated in migrated", lambda a, b: b > a)):
        counts = sorted((pair, n) for pair, n in changed.items() if test(*pair))
        if counts:
            parts.append("%d %s (%s)" % (sum(n for _, n in counts), words, ", ".join(
                "%d: %d times -> %d" % (n, a, b) for (a, b), n in counts[:4]) + (", ..." if len(counts) > 4 else "")))
    return "; ".join(parts)


ORDER_WORDS = {"same": "in the same order under another seed", "blocks": "shuffled in blocks (e.g. files), "
               "records in order within them", "records": "shuffled record by record", "shuffled": "shuffled"}


def order_kind(first: list, second: list, tolerance: int = ORDER_TOLERANCE) -> Optional[str]:
    """How two runs under different seeds differ in order (None: too few examples to tell).

    "same": at most a tenth of the examples moved by more than `tolerance` places (threads racing
    move a few by a few); otherwise shuffled, and told apart when there is enough to see:
    "blocks" when most neighbours stay neighbours (within `tolerance`: files shuffled, records in
    file order), "records" when they do not; "shuffled" when the runs share too few neighbours.
    """
    length = min(len(first), len(second))
    if length < 2 * tolerance:
        return None
    where = {}
    for index, example in enumerate(second[:length]):
        where.setdefault(example, index)
    position = {}  # each example's first place in the first run
    for index, example in enumerate(first[:length]):
        position.setdefault(example, index)
    order = list(position)
    moved = sum(1 for example, index in position.items() if abs(where.get(example, 10 ** 9) - index) > tolerance)
    if moved <= 0.1 * len(order):
        return "same"
    pairs = [(a, b) for a, b in zip(order, order[1:]) if a in where and b in where]
    # Random positions keep a pair within `tolerance` with odds 2 * tolerance / length: keep them low.
    if length < 8 * tolerance or len(pairs) < 0.2 * len(order):
        return "shuffled"
    kept = sum(1 for a, b in pairs if abs(where[a] - where[b]) <= tolerance)
    return "blocks" if kept >= 0.5 * len(pairs) else "records"


def _compare_order(report, legacy, migrated):
    kinds = {label: order_kind(side["towers"][0], side["order"][0])
             for label, side in (("legacy", legacy), ("migrated", migrated))}
    if None in kinds.values():
        _unchecked(report, "order", "too few examples to tell")
        return
    old, new = kinds["legacy"], kinds["migrated"]
    alike = old == new or ("shuffled" in (old, new) and "same" not in (old, new))
    if alike:
        both = ORDER_WORDS[old if old != "shuffled" else new]
        _check(report, "order", True, ("not shuffled in either" if old == "same" else both + " in both")
               + " (two runs under different seeds)")
    else:
        _check(report, "order", False, "legacy %s, migrated %s (two runs under different seeds)"
               % (ORDER_WORDS[old], ORDER_WORDS[new]))


def _compare_towers(report, legacy, migrated, request):
    """The migrated towers' first epochs: disjoint, and together the legacy side's whole data."""
    towers = request.towers
    if request.keep_random:
        _unchecked(report, "towers", "--keep-random: examples cannot be told apart across towers")
        return
    probe = migrated.get("probe")
    if not probe:
        return
    if not migrated.get("sharded"):
        report["warnings"].append("the migrated function takes no num_shards/shard_index: each tower calls it "
                                  "as it is")
    epochs = [Counter(stream) for stream in probe["towers"]]
    owners = Counter(example for epoch in epochs for example in epoch)
    shared = [example for example, count in owners.items() if count > 1]
    repeated = sum(1 for epoch in epochs for count in epoch.values() if count > 1)
    sizes = " + ".join(str(sum(epoch.values())) for epoch in epochs)
    if shared or repeated:
        detail = "within one epoch, %d examples reach more than one tower (%s examples per tower)" % (
            len(shared), sizes)
        if repeated:
            detail += "; %d examples repeat within a tower's epoch" % repeated
        _check(report, "towers", False, detail)
        return
    if not all(probe["ended"]):
        _unchecked(report, "towers", "disjoint in what was read, but a tower's epoch did not end within %d "
                   "batches: coverage not checked" % (10 * request.batches))
        return
    if not _complete(legacy):
        _unchecked(report, "towers", "disjoint (%s examples per tower); the legacy side did not see its whole "
                   "data: coverage not checked, give more --batches" % sizes)
        return
    everything = set(_stream(legacy))
    union = set(owners)
    missing, extra = everything - union, union - everything
    batch = migrated["batch_shapes"][0][0][0] if migrated["batch_shapes"] and migrated["batch_shapes"][0][0] else 1
    # Read alone for one epoch, each tower drops its final partial batch; in training it is not lost.
    allowed = towers * (batch - 1)
    if extra or len(missing) > allowed:
        _check(report, "towers", False, "one epoch over %d towers (%s examples) misses %d of the %d examples "
               "and has %d the legacy side never gives" % (towers, sizes, len(missing), len(everything), len(extra)))
        return
    note = " (%d in final partial batches, dropped when a tower is read alone)" % len(missing) if missing else ""
    _check(report, "towers", True, "%d towers, disjoint within an epoch, together covering it: %s of %d examples%s"
           % (towers, sizes, len(everything), note))


# ---- rendering ----------------------------------------------------------------------------------

def render_text(report: dict) -> str:
    lines = ["qmigrate verify %s" % report["target"]]
    for label in ("legacy", "migrated"):
        side = report["sides"][label]
        source = "as it is" if label == "legacy" else report["migrated_from"]
        if not side["ok"]:
            lines.append("%-9s %s: FAILED at %s:" % (label + ":", source, side["stage"]))
            lines += ["    " + line for line in (side["error"] or "").splitlines()]
            continue
        steps = "%d batches" % side["batches"]
        if side.get("towers", 1) > 1:
            steps = "%d steps of %d towers" % (side["batches"], side["towers"])
        lines.append("%-9s %s: %s, %d examples (%d distinct), %s; TF %s" % (
            label + ":", source, steps, side["examples"], side["distinct"],
            "ended" if side["ended"] else "did not end", side["tf_version"]))
    for warning in report["warnings"]:
        lines.append("warning: " + warning)
    for check in report["checks"]:
        lines.append("  %-12s %-13s %s" % (check["status"], check["check"], check["detail"]))
    rates = report.get("throughput")
    if rates and rates["legacy"] and rates["migrated"]:
        lines.append("throughput: legacy %.0f examples/s, migrated %.0f examples/s (%.2fx), median of %d round%s, "
                     "both sides running at once" % (rates["legacy"], rates["migrated"], rates["ratio"],
                                                     rates["rounds"], "" if rates["rounds"] == 1 else "s"))
    unchecked = report.get("not_checked")
    lines.append("result: %s" % report["result"] + (" in what was checked (not checked: %s)" % ", ".join(unchecked)
                                                    if unchecked and report["result"] == "equivalent" else ""))
    return "\n".join(lines)


def exit_code(report: dict) -> int:
    return {"equivalent": EQUIVALENT, "different": DIFFERENT}.get(report["result"], FAILED)


def main_entry(request: Request, output_format: str = "text") -> int:
    """Run, print the report on stdout, return the exit code (2 with the reason on stderr when the
    request cannot be carried out)."""
    try:
        report = verify(request)
    except VerifyError as error:
        sys.stderr.write("qmigrate verify: %s\n" % error)
        return FAILED
    sys.stdout.write((json.dumps(report, indent=2) if output_format == "json" else render_text(report)) + "\n")
    return exit_code(report)
