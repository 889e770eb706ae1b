"""Queues fed from Python threads (QM308): goldens of our own writing migrated with --unsafe, left
alone and reported without it, and drained before and after under real TensorFlow 1.8, 1.15 and
2.21 (graph mode): the same examples per epoch, the same shapes and padding, and the migrated
input ends where the data does.

Regenerate the goldens with `pytest tests/test_python_fed.py --update-goldens`, review with git diff.
"""
import glob
import os
import re
from collections import Counter

import libcst as cst
import pytest

from conftest import TESTDATA
from qmigrate import api, render
from qmigrate.engine import Options
from qmigrate.targets import TARGETS
from test_tf_behaviour import _legacy_copy  # the legacy program as it runs under TF 2
from tfenv import finish, load_json, start_tf, tf_python

FOLDER = os.path.join(TESTDATA, "python_fed")
CASES = sorted(glob.glob(os.path.join(FOLDER, "*.before.py")))
_ID = lambda p: os.path.basename(p)[: -len(".before.py")]


def _migrate(path, unsafe=True, target="1.8"):
    [result] = api.migrate([path], Options(unsafe=unsafe, target=TARGETS[target]))
    assert result.error is None, result.error
    return result


def _findings(result):
    return render.findings([result], show_fixed=True).replace(os.path.dirname(result.path) + os.sep, "") + "\n"


@pytest.mark.parametrize("before", CASES, ids=_ID)
def test_golden_with_unsafe(before, update_goldens):
    stem = before[: -len(".before.py")]
    result = _migrate(before)
    output = (result.new_source or result.old_source).decode("utf-8")
    findings = _findings(result)
    if update_goldens:
        with open(stem + ".after.py", "w", encoding="utf-8") as handle:
            handle.write(output)
        with open(stem + ".findings.txt", "w", encoding="utf-8") as handle:
            handle.write(findings)
    with open(stem + ".after.py", encoding="utf-8") as handle:
        assert output == handle.read()
    with open(stem + ".findings.txt", encoding="utf-8") as handle:
        assert findings == handle.read()


@pytest.mark.parametrize("before", CASES, ids=_ID)
def test_second_run_changes_nothing(before, tmp_path):
    result = _migrate(before)
    output = result.new_source or result.old_source
    cst.parse_module(output)
    again = tmp_path / os.path.basename(before)
    again.write_bytes(output)
    assert not _migrate(str(again)).changed


@pytest.mark.parametrize("before", CASES, ids=_ID)
def test_without_unsafe_nothing_changes_and_the_finding_says_why(before):
    result = _migrate(before, unsafe=False)
    assert not result.changed
    fed = [d for d in result.diagnostics if d.code == "QM308"]
    if os.path.basename(before).startswith("refused"):
        assert not fed
        return
    assert fed and not any(d.fixed for d in fed)
    assert all("GIL" in d.message and "--unsafe" in d.message for d in fed)
    queues = [d for d in result.diagnostics if d.code == "QM307"]
    assert queues and all("applied only with --unsafe" in d.message for d in queues)


def test_refusals_name_the_construct_and_its_line():
    result = _migrate(os.path.join(FOLDER, "refused.before.py"))
    assert not result.changed
    reasons = [d.message for d in result.diagnostics if d.code == "QM307"]
    expected = [
        r"also uses the session `sess\.run\(self\.step\)` \(line \d+\): the loop does more than feed",
        r"started in a loop `for _ in range\(n_threads\):` \(line \d+\)",
        r"feeds `self\.weight`, which its enqueue op does not read",
        r"dequeued in `return self\.queue\.dequeue_many\(n\)` \(line \d+\), away from the block",
        r"`enqueue_op` leaves `preloading\(\)` in its return value `return .*` \(line 93\), and `load_and_enqueue\(\)` "
        r"runs it with a feed_dict `sess\.run\(enqueue_op, feed_dict=\{x: row\}\)` \(line \d+\): qmigrate would make "
        r"that loop the generator of a dataset built in `preloading\(\)`, but its builder `preloading\(\)` is called "
        r"nowhere in this module: its callers are elsewhere",
        r"`feed\(\)` is also used by `self\.feed\(sess\)` \(line \d+\)",
    ]
    for pattern in expected:
        assert any(re.search(pattern, reason) for reason in reasons), (pattern, reasons)


def test_branch_and_helper_refusals_name_the_construct_and_its_line():
    result = _migrate(os.path.join(FOLDER, "refused_branches.before.py"))
    assert not result.changed
    reasons = [d.message for d in result.diagnostics if d.code == "QM307"]
    expected = [
        r"`q` is bound to 2 queues in its function \(line 16, line 20, one per arm of `if with_mask:` \(line 15\)\)",
        r"`self\.queue` has 2 enqueue ops in its class \(`self\.enqueue = self\.queue\.enqueue_many\(\[self\.x\]\)` "
        r"\(line 40\), `self\.enqueue = self\.queue\.enqueue\(\[self\.x\]\)` \(line 42\)\): one per arm of `if many:`",
        r"its enqueue op `enqueue` is handed to `make_runner\(\.\.\.\)`, a queue runner of the program.s own .* \(line 60\) and run through it "
        r"\(`\[enqueue\] \* n_threads`: a thread per copy, several producers",
        r"`self\._placeholders`, the list the queue reads, is also used by `self\._placeholders\.extend\(self\.more\(\)\)` "
        r"\(line 77\), which may change it",
        r"`self\.queue` has no enqueue op in its class: it is handed to `EnqueueThread\(\.\.\.\)` in "
        r"`self\.thread = EnqueueThread\(self\.queue, rows, placeholders\)` \(line 108\)",
        r"it is built in a loop `for _ in range\(n_slots\):` \(line 118\): a queue per iteration",
    ]
    for pattern in expected:
        assert any(re.search(pattern, reason) for reason in reasons), (pattern, reasons)
    assert all("fed from Python" in reason for reason in reasons)


def test_emitted_code_is_python_3_6_syntax(tmp_path):
    import subprocess

    python = tf_python("1.8")
    for before in CASES:
        path = tmp_path / os.path.basename(before).replace(".before", ".after")
        path.write_bytes(_migrate(before).new_source or open(before, "rb").read())
        done = subprocess.run([python, "-m", "py_compile", str(path)], stderr=subprocess.PIPE, universal_newlines=True)
        assert done.returncode == 0, done.stderr


def _drain(case, tf_version, tmp_path, drained=None):
    """(before, after): what the legacy and the migrated program gave, under `tf_version`
    (`drained`: run_python_fed.py's function for it, when not the case's own name)."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(FOLDER, case + ".before.py"), str(tmp_path), tf_version)
    result = _migrate(before, target=tf_version)
    assert result.changed
    after = str(tmp_path / (case + ".after_run.py"))
    with open(after, "wb") as handle:
        handle.write(result.new_source)
    runs = {}
    for label, path, extra in (("before", before, ()), ("after", after, ("--drain-past-end",))):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "run_python_fed.py", path, drained or case, out, *extra), out)
    got = {}
    for label, (process, out) in runs.items():
        finish(process)
        got[label] = load_json(out)
    return got["before"], got["after"]


@pytest.mark.parametrize("tf_version", ("1.8", "1.15", "2"), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("case", ("padding_feeder", "shuffle_chunks", "arm_dequeues", "computed_shapes",
                                  "concatenated_inputs", "train_and_eval_queues"))
def test_same_examples_before_and_after(case, tf_version, tmp_path):
    old, new = _drain(case, tf_version, tmp_path)
    # The migrated input ends with the data (OutOfRangeError), where the queue would wait.
    assert new["ended"] and not old["ended"]
    assert len(new["batches"]) == len(old["batches"]) > 0
    assert [b["shape"] for b in new["batches"]] == [b["shape"] for b in old["batches"]]
    old_ids = [i for b in old["batches"] for i in b["ids"]]
    new_ids = [i for b in new["batches"] for i in b["ids"]]
    assert Counter(new_ids) == Counter(old_ids) == Counter(range(len(old_ids)))  # every example once
    if case == "computed_shapes":
        # Shapes read from the arrays, with the batch dimension enqueue_many fed: the same batches.
        assert new["static_shapes"] == old["static_shapes"] == [[8, 2, 3], [8]]
        assert new["batches"] == old["batches"]
    elif case == "arm_dequeues":
        # One producer, FIFO, a dequeue per arm: the same batches in the same order in both graphs.
        assert new["static_shapes"] == old["static_shapes"]
        assert new["batches"] == old["batches"]
        assert [b["values"][0][0] for b in new["batches"]] == [10.0 * i for i in range(0, 48, 8)]
    elif case == "concatenated_inputs":
        # Column placeholders added up with the target's, fed key by key: the same chunks, in order,
        # each column with its own values.
        assert new["batches"] == old["batches"] and new["static_shapes"][2] == [None]
        assert [b["ids"] for b in new["batches"]] == [list(range(s, s + 8)) for s in range(0, 40, 8)]
        assert [b["second"] for b in new["batches"]] == [[i + 0.5 for i in b["ids"]] for b in new["batches"]]
    elif case == "train_and_eval_queues":
        # Two queues fed from one list of placeholders by two threads, each now a generator of its
        # own: the same batches, train then eval, each in its order.
        assert new["static_shapes"] == old["static_shapes"] == [[None, 4], [None]]
        assert new["batches"] == old["batches"]
        assert [b["ids"][0] for b in new["batches"]] == list(range(0, 32, 4))
    elif case == "padding_feeder":
        # One producer, FIFO: the same batches in the same order, padded the same way.
        assert new["static_shapes"] == old["static_shapes"]
        assert new["batches"] == old["batches"]
        assert {b["shape"][1] for b in new["batches"]} == {2, 3, 4}  # each batch padded to its longest
    else:
        # Shuffled: each batch's values still belong to its ids (4 * id + 0.6 per example).
        for batch in old["batches"] + new["batches"]:
            assert [round(v, 3) for v in batch["values"]] == [round(4 * i + 0.6, 3) for i in batch["ids"]]
        assert new_ids != sorted(new_ids) and old_ids != sorted(old_ids)


@pytest.mark.parametrize("tf_version", ("1.8", "1.15", "2"), ids=lambda v: "tf" + v)
def test_placeholders_made_per_arm_and_grown_feed_two_queues_the_same(tf_version, tmp_path):
    """train_and_eval_queues.ConditionedFeeder: a placeholder made in each arm of an if, a list
    grown by an append under a flag, one dtypes list for a train and an eval queue, each dequeue
    bound to one name: components read when the dataset is built, the same batches in both graphs."""
    old, new = _drain("train_and_eval_queues", tf_version, tmp_path, drained="conditioned_feeder")
    assert new["ended"] and not old["ended"]
    assert new["static_shapes"] == old["static_shapes"] == [[None, 4]] * 2
    assert new["batches"] == old["batches"] and len(old["batches"]) == 16
    assert [b["ids"][0] for b in new["batches"][:8]] == list(range(0, 32, 4))  # ids, with_ids=True
    assert {i for b in new["batches"][8:] for i in b["ids"]} == {4}  # lengths, without ids


@pytest.mark.parametrize("tf_version", ("1.8", "1.15", "2"), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("case", ("grouped_batches", "nested_producer", "thread_subclass", "growing_feeder"))
def test_endless_feeders_give_the_same_sequence(case, tf_version, tmp_path):
    """One producer feeding a FIFO queue: the same elements in the same order, shapes and padding
    included, from the generator (through a helper's `yield from`, a nested def moved up, the
    run() of a feeder that is itself a thread, or components collected at run time)."""
    old, new = _drain(case, tf_version, tmp_path)
    assert not old["ended"] and not new["ended"]
    assert new["static_shapes"] == old["static_shapes"]
    assert len(new["batches"]) == len(old["batches"]) > 0
    assert new["batches"] == old["batches"]
    if case == "growing_feeder":  # one group: two components; two groups: three, the ids included
        assert [len(shapes) for shapes in new["static_shapes"]] == [2, 3]
        assert {b["groups"] is None for b in new["batches"][:8]} == {True}
        assert {g for b in new["batches"][8:] for g in b["groups"]} == {0, 1}
    if case != "nested_producer":  # padded per batch in numpy, to different lengths
        assert len({b["shape"][1] for b in new["batches"]}) > 1
    else:  # whole chunks of 8 from the 30 examples: 0..23, then from 0 again
        ids = [b["ids"][0] for b in new["batches"]]
        assert ids[:32] == list(range(24)) + list(range(8)) and len(set(ids)) == 24


@pytest.mark.parametrize("tf_version", ("1.8", "1.15", "2"), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("case", ("shuffle_arm", "buffer_arms"))
def test_a_queue_per_arm_buffers_as_its_arm_did(case, tf_version, tmp_path):
    """A queue per arm of an if (FIFO in one, shuffling in another): one graph per arm, the same
    examples, in the same order where the arm's queue was FIFO, shuffled where it shuffled, and the
    migrated input ends where the data does."""
    old, new = _drain(case, tf_version, tmp_path)
    assert new["static_shapes"] == old["static_shapes"]
    assert all(new["ends"]) and not any(old["ends"])
    graphs = len(new["ends"])
    per_graph = lambda run: [run["batches"][i:i + 6] for i in range(0, len(run["batches"]), 6)] \
        if case == "buffer_arms" else [run["batches"][:6], run["batches"][6:]]
    old_graphs, new_graphs = per_graph(old), per_graph(new)
    assert len(new_graphs) == graphs and [len(g) for g in new_graphs] == [6] * graphs
    for batch in old["batches"] + new["batches"]:  # each row still carries its own id
        assert [row[0] for row in batch["values"]] == [10.0 * i for i in batch["ids"]]
    shuffled = 1  # the second graph: the RandomShuffleQueue's arm
    for index, (before, after) in enumerate(zip(old_graphs, new_graphs)):
        ids = [i for b in after for i in b["ids"]]
        assert sorted(ids) == sorted(set(ids)) and len(ids) == 48  # every example once
        if index != shuffled:
            assert after == before  # FIFO: the same batches in the same order
        else:
            assert ids != sorted(ids)
            old_ids = [i for b in before for i in b["ids"]]
            assert len(old_ids) == len(set(old_ids)) and set(old_ids) <= set(ids)
            assert old_ids != sorted(old_ids)


@pytest.mark.parametrize("tf_version", ("1.8", "1.15", "2"), ids=lambda v: "tf" + v)
def test_an_enqueue_op_returned_to_a_thread_elsewhere(tf_version, tmp_path):
    """The builder returns its enqueue op, the caller hands it to a function that starts the thread
    (returned_feeds): the FIFO trainer gets the same batches in the same order; the shuffling one
    batches of 8 examples, each row still its own id's, from one stream of all 40 ids."""
    old, new = _drain("returned_feed", tf_version, tmp_path)
    assert new["batches"] == old["batches"] and len(new["batches"]) == 12
    assert [b["ids"][0] for b in new["batches"]] == [4.0 * (step % 10) for step in range(12)]
    for run in (old, new):
        assert len(run["shuffled"]) == 10
        for batch in run["shuffled"]:
            assert len(batch["ids"]) == 8
            assert batch["values"] == [[3.0 * i, 3.0 * i + 1, 3.0 * i + 2] for i in batch["ids"]]
        ids = [i for batch in run["shuffled"] for i in batch["ids"]]
        assert set(ids) <= set(range(40)) and ids != sorted(ids)


def test_handoff_refusals_name_the_construct_and_its_line():
    result = _migrate(os.path.join(FOLDER, "refused_handoffs.before.py"))
    assert not result.changed
    reasons = [d.message for d in result.diagnostics if d.code == "QM307" and "fed from Python" in d.message]
    expected = [
        r"goes into the QueueRunner `runner` `runner = tf\.train\.QueueRunner\(pool, \[fill\]\)` \(line 17\), which is "
        r"never started .*`sess\.run\(runner\.enqueue_ops, .*` \(line 22\) runs its enqueue ops with a feed_dict from "
        r"the main code of `fill_then_train\(\)`, not from a thread",
        r"`push_op` leaves `make_input\(\)` in its return value `return queue\.dequeue\(\), push_op, holders` \(line 31\), "
        r"and `pump\(\)` runs it .*\(line 36\): qmigrate would make that loop the generator of a dataset built in "
        r"`make_input\(\)`, but `run\(\)` starts the thread itself `worker = threading\.Thread.*` \(line 42\)",
        # Returned as a computed dict (returned_feeds follows a tuple of names, and the dequeue).
        r"`keyed_op` leaves `keyed_input\(\)` in its return value `return dict\(zip\(holders\.keys\(\), parts\)\), "
        r"keyed_op, holders` \(line 144\), and `pump_keyed\(\)` runs it .*\(line 150\): .* but `keyed_input\(\)` "
        r"does not end with its one return of a tuple of names",
        r"the thread that runs `work\(\)` is started in a loop `for _ in range\(workers\):` \(line 60\): several "
        r"producers .*; it is dequeued in `return self\.queue\.dequeue\(\)` \(line 57\), away from the block ",
        r"`q` is bound to 3 queues in its function \(line 80, line 84, line 88\): each with an enqueue op of its own "
        r"beside it .*; its enqueue op `self\.feed_op` is run nowhere in this file",
        r"its feed_dict `feed` `sess\.run\(self\.enqueue_op, feed_dict=feed\)` \(line \d+\) does not feed exactly the "
        r"placeholders its enqueue adds up \(`self\.column_ins \+ \[self\.target_in\]`\)",
        r"the queue per arm of `if wide:` \(line \d+\) `self\.queue = tf\.FIFOQueue\(8, \[tf\.float32\], "
        r"shapes=\[\[3\]\]\)` \(line \d+\) has other `shapes=` than",
    ]
    for pattern in expected:
        assert any(re.search(pattern, reason) for reason in reasons), (pattern, reasons)
    assert len(reasons) == 10  # the last class's two queues, and keyed_input()'s


@pytest.mark.parametrize("tf_version", ("1.8",), ids=lambda v: "tf" + v)
def test_records_mapped_and_batched_after_the_generator(tf_version, tmp_path):
    """A dequeue() followed by per-record code and a batcher per arm (batch / shuffle_batch): the
    per-record code runs in the map function (every value x * 2 + 1 of its own row), FIFO batches
    come in the same order, shuffled ones hold each example once; the migrated input ends with
    the generator, and also gives the records the legacy shuffle queue kept back."""
    old, new = _drain("batched_records", tf_version, tmp_path)
    assert new["static_shapes"] == old["static_shapes"] == [[8, 2], [8]]
    assert old["counts"] == [6, 5] and new["counts"] == [6, 6]
    assert not any(old["ends"]) and all(new["ends"])
    for batch in old["batches"] + new["batches"]:
        assert batch["values"] == [[20.0 * i + 1.0, 20.0 * i + 2.0] for i in batch["ids"]]
    assert new["batches"][:6] == old["batches"][:6]  # FIFO: the same batches in the same order
    shuffled = [i for b in new["batches"][6:] for i in b["ids"]]
    assert sorted(shuffled) == list(range(48)) and shuffled != sorted(shuffled)
    legacy = [i for b in old["batches"][6:] for i in b["ids"]]
    assert len(legacy) == len(set(legacy)) == 40


def test_batchers_kept_after_the_generator_say_why():
    result = _migrate(os.path.join(FOLDER, "kept_batchers.before.py"))
    assert result.changed
    reasons = [d.message for d in result.diagnostics if d.code == "QM301"]
    expected = [
        r"it batches the records of a dataset made from a Python generator \(QM308\), read one at a time from its "
        r"iterator, but `step = tf\.train\.get_or_create_global_step\(\)` \(line 15\), between its dequeue "
        r"`row = queue\.dequeue\(\)` \(line 13\) and the batching .* does not work on the records",
        r"but `row`, a record of its dequeue `row = pool\.dequeue\(\)` \(line 29\), is also used by "
        r"`tf\.summary\.histogram\(\"row\", row\)` \(line 32\), outside the per-record code",
    ]
    assert len(reasons) == 2
    for pattern in expected:
        assert any(re.search(pattern, reason) for reason in reasons), (pattern, reasons)


def test_placeholders_appended_in_a_loop_are_said_to_be_so(tmp_path):
    # Found outside the corpus (a feeder that makes one placeholder per dtype): the reason said
    # the append was "not an append of tf.placeholder tensors ... outside loops", which it is.
    path = tmp_path / "feeder.py"
    path.write_text('''import threading

import tensorflow as tf


def start_feeding(sess, rows, dtypes):
    placeholders = []
    for dtype in dtypes:
        placeholders.append(tf.placeholder(dtype=dtype))
    queue = tf.FIFOQueue(10, dtypes=dtypes)
    enqueue = queue.enqueue(placeholders)

    def feed():
        for row in rows:
            sess.run(enqueue, feed_dict=dict(zip(placeholders, row)))

    threading.Thread(target=feed).start()
    return queue.dequeue()
''')
    result = _migrate(str(path))
    [message] = [d.message for d in result.remaining if d.code == "QM307" and "FIFOQueue" in d.message]
    assert "an append in a loop (`for dtype in dtypes:` (line 8))" in message
