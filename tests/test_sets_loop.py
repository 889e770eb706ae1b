"""Sets of batches built in a plain `for i in range(num_sets):` loop over one shared reader
(testdata/single/sets_loop): before and after migration, drained under TensorFlow 1.8.

The queue program's set queues all pull lines from the one reader, so each line reaches one set.
Migrated, set i batches shard i of the lines: over one epoch (every set taking its batches
together, as a multi-GPU step does) each example reaches exactly one set, once.
"""
import json
import os

import numpy
import pytest

from conftest import TESTDATA
from qmigrate import api
from qmigrate.engine import Options
from qmigrate.targets import TARGETS
from tfenv import finish, load_json, start_tf, tf_python

BEFORE = os.path.join(TESTDATA, "single", "sets_loop.before.py")
SETS, BATCH = 3, 8
EXAMPLES = 64 * SETS * 2  # whole blocks of 64 lines per shard: every set's shard holds 128 lines
STEPS_PER_EPOCH = EXAMPLES // (SETS * BATCH)


@pytest.fixture(scope="module")
def list_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sets") / "list.txt"
    path.write_text("".join("%d %d\n" % (example, example % 5) for example in range(EXAMPLES)))
    return str(path)


def _drain(tmp_path, tf_version, function, list_file, steps, **arguments):
    python = tf_python(tf_version)
    [result] = api.migrate([BEFORE], Options(target=TARGETS[tf_version]))
    assert result.changed
    after = str(tmp_path / "sets_loop_after.py")
    with open(after, "wb") as handle:
        handle.write(result.new_source)
    args = json.dumps(dict(arguments, list_path=list_file, batch_size=BATCH, num_sets=SETS))
    runs = {}
    for label, path in (("before", BEFORE), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "drain_sets.py", path, function, args, steps, out), out)
    for process, _ in runs.values():
        finish(process)
    return load_json(runs["before"][1]), load_json(runs["after"][1])


def _check_rows(run, offset, tolerance):
    """Each row's label and features were made from its own line: the per-record code ran on it.
    Its noise, below `tolerance`, is added in float32: the sum may round up to the float32 of
    the value plus `tolerance` (349 + 0.09999 gives 349.1000061), which is the bound."""
    for example, label, feature in run["rows"]:
        assert label == example % 5
        value = example - offset
        bound = float(numpy.float32(value) + numpy.float32(tolerance)) - value
        assert abs(feature - value) <= bound, (example, feature)


def _check_epochs(run, epochs):
    for epoch in range(epochs):
        steps = run["steps"][epoch * STEPS_PER_EPOCH:(epoch + 1) * STEPS_PER_EPOCH]
        seen = [example for step in steps for one_set in step for example in one_set]
        assert sorted(seen) == list(range(EXAMPLES)), "epoch %d: every example exactly once over all sets" % epoch
        by_set = [set(example for step in steps for example in step[index]) for index in range(SETS)]
        assert sum(len(one) for one in by_set) == EXAMPLES, "a set took another set's example"


@pytest.mark.parametrize("tf_version", ("1.8",), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("function,arguments,offset,tolerance", [
    ("train_sets", dict(shuffle=True), 0.0, 0.1),
    ("eval_sets", dict(shuffle=False), 0.0, 0.0),
    ("eval_sets", dict(shuffle=False, centred=True), 0.5, 0.0),
], ids=["train", "eval", "eval-centred"])
def test_each_example_reaches_one_set_per_epoch(function, arguments, offset, tolerance, list_file, tmp_path,
                                                tf_version):
    epochs = 2
    before, after = _drain(tmp_path, tf_version, function, list_file, STEPS_PER_EPOCH * epochs, **arguments)
    for run in (before, after):
        assert all(shapes == [[BATCH, 4]] * SETS for shapes in run["shapes"])
        _check_rows(run, offset, tolerance)
    # The queues' buffers let an epoch's end spill into the next (one step may then hold an
    # example twice, from two epochs); the shards keep epochs.
    for step in after["steps"]:
        flat = [example for one_set in step for example in one_set]
        assert len(set(flat)) == len(flat) == SETS * BATCH, "one example in two sets of a step"
    _check_epochs(after, epochs)
    # The queue program's shuffle buffers may hold an example back past the second epoch.
    seen_before = {example for step in before["steps"] for one_set in step for example in one_set}
    assert seen_before <= set(range(EXAMPLES)) and len(seen_before) >= 0.9 * EXAMPLES
