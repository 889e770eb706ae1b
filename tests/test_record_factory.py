"""A hand-built queue of single records whose records come from another module, through a chain of
three modules (testdata/towers/record_factory, FastMaskRCNN's shape): train.py's RandomShuffleQueue
takes what factory.get_examples() returns, which takes data.records.read()'s decoded tensors, which
reads the files with a producer and a reader.

qmigrate follows the records across the modules (qmigrate/chained_records.py): records.read()
returns the dataset of its records (its producer and reader a dataset, its per-record code a map),
factory.get_examples() maps its own per-record code over it (an `if` on a Python flag included)
and returns it, and train.py's queue becomes the dataset's shuffle, its dequeue() the iterator's
get_next(); the runner, its registration and the loop starting the runners go. Checked here: the
statuses, and that the migrated program gives the same records (multiset per run, shapes,
structure) and trains as many steps under TensorFlow 1.8.
"""
import glob
import os
import shutil

import pytest

from conftest import TESTDATA
from qmigrate import api
from qmigrate.diagnostics import Status
from test_golden import migrate_tree
from test_handed_down import _by_name, drain, script_steps
from test_tf_behaviour import _refines
from tfenv import run_tf, tf_python

BEFORE = os.path.join(TESTDATA, "towers", "record_factory", "before")
ENTRY = "from train import mixed_examples\n"


def test_the_queue_and_the_modules_its_records_come_from_migrate_together(tmp_path):
    root = str(tmp_path / "program")
    shutil.copytree(BEFORE, root)
    results = _by_name(api.migrate([root]), root)
    records = results[os.path.join("data", "records.py")]
    # The slim Dataset's reader class stays: describe_split(), which hands it over, is called by no code.
    assert records.changed and not records.remaining
    assert any(d.code == "QM110" and "describe_split(), which makes the Dataset" in d.message
               for d in records.diagnostics)
    assert results[os.path.join("data", "factory.py")].status is Status.MIGRATED
    train = results["train.py"]
    assert train.status is Status.MIGRATED, train.diagnostics
    assert b"dataset = dataset.shuffle(10)\n" in train.new_source


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tfdata")
    run_tf(tf_python("1.8"), "make_data.py", folder)
    return str(folder)


def test_tf1_8_the_migrated_program_gives_the_same_records(data_dir, tmp_path):
    python = tf_python("1.8")
    before = str(tmp_path / "before")
    shutil.copytree(BEFORE, before)
    after = str(tmp_path / "after")
    migrate_tree(BEFORE, after)
    old, new = (drain(python, root, "mixed_examples", dict(data_dir=data_dir), tmp_path, label, ENTRY)
                for root, label in ((before, "before"), (after, "after")))
    # The queue had no `shapes=`, so its dequeue had no static shape; the dataset's element has the
    # map's: the same or more specific, never in conflict (as for test_tf_behaviour's single records).
    assert new["kind"] == old["kind"] and len(new["static_shapes"]) == len(old["static_shapes"])
    assert all(_refines(a, b) for a, b in zip(new["static_shapes"], old["static_shapes"]))
    assert new["batch_shapes"] == old["batch_shapes"]
    assert len(new["examples"]) == 150  # 3 epochs of the 50 examples of dict_*
    assert sorted(new["examples"]) == sorted(old["examples"])
    steps = [script_steps(python, root, ["train.py", data_dir]) for root in (before, after)]
    assert steps == [150, 150]
