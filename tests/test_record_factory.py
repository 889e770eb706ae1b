"""A hand-built queue of single records whose records come from another module, through a chain of
three modules (testdata/towers/record_factory, FastMaskRCNN's shape): train.py's RandomShuffleQueue
takes what factory.get_examples() returns, which takes data.records.read()'s decoded tensors, which
reads the files with a producer and a reader.

qmigrate rewrites the producer → reader in records.read() in place (a one-shot iterator, the same
tensors out); it does not follow records across modules into a hand-built queue, so train.py's
queue, its runner and the runner loop stay, with a diagnostic naming the module the records come
from. Checked here: the statuses and reasons, and that the partly migrated program gives the same
records (multiset per run, shapes, structure) under TensorFlow 1.8, with the 4 runner threads now
pulling from the iterator.
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
from tfenv import run_tf, tf_python

BEFORE = os.path.join(TESTDATA, "towers", "record_factory", "before")
ENTRY = "from train import mixed_examples\n"


def test_the_queue_stays_with_the_module_its_records_come_from(tmp_path):
    root = str(tmp_path / "program")
    shutil.copytree(BEFORE, root)
    results = _by_name(api.migrate([root]), root)
    records = results[os.path.join("data", "records.py")]
    assert records.changed and records.status is Status.PARTIAL
    # The slim Dataset's reader class: no provider of the run reads it, so it stays as it is, reported.
    assert any("handed over as a reader class" in d.message for d in records.diagnostics)
    assert not results[os.path.join("data", "factory.py")].changed
    train = results["train.py"]
    assert not train.changed and train.status is Status.DIAGNOSED
    assert any("comes from `factory.get_examples()` (line 10), a function of the imported module `data.factory`"
               in d.message for d in train.diagnostics), train.diagnostics


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tfdata")
    run_tf(tf_python("1.8"), "make_data.py", folder)
    return str(folder)


def test_tf1_8_the_partly_migrated_program_gives_the_same_records(data_dir, tmp_path):
    python = tf_python("1.8")
    before = str(tmp_path / "before")
    shutil.copytree(BEFORE, before)
    after = str(tmp_path / "after")
    migrate_tree(BEFORE, after)
    old, new = (drain(python, root, "mixed_examples", dict(data_dir=data_dir), tmp_path, label, ENTRY)
                for root, label in ((before, "before"), (after, "after")))
    assert new["kind"] == old["kind"] and new["static_shapes"] == old["static_shapes"]
    assert new["batch_shapes"] == old["batch_shapes"]
    assert len(new["examples"]) == 150  # 3 epochs of the 50 examples of dict_*
    assert sorted(new["examples"]) == sorted(old["examples"])
    steps = [script_steps(python, root, ["train.py", data_dir]) for root in (before, after)]
    assert steps == [150, 150]
