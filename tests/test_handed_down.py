"""Records handed down to a batching helper of another module (qmigrate/handed_down.py).

The golden program is testdata/towers/handed_down (checked by test_golden). Here: the helper and
its callers change together or not at all, and the migrated program gives the same examples and
trains the same number of steps as the legacy one under TensorFlow 1.8.
"""
import glob
import json
import os
import shutil
import subprocess
from collections import Counter

import pytest

from conftest import TESTDATA
from qmigrate import api, handed_down
from qmigrate.diagnostics import Status
from test_golden import migrate_tree
from tfenv import finish, load_json, run_tf, start_tf, tf_python

BEFORE = os.path.join(TESTDATA, "towers", "handed_down", "before")
ENTRY = "from data.records import train_inputs, split_inputs\n"


def _program(tmp_path, extra=None):
    out = str(tmp_path / "program")
    shutil.copytree(BEFORE, out)
    for name, text in (extra or {}).items():
        with open(os.path.join(out, name), "w") as handle:
            handle.write(text)
    return out


def _by_name(results, root):
    return {os.path.relpath(r.path, root): r for r in results}


def test_the_helper_and_its_callers_migrate_together(tmp_path):
    root = _program(tmp_path)
    results = _by_name(api.migrate([root]), root)
    assert results[os.path.join("data", "batching.py")].status is Status.MIGRATED
    assert results[os.path.join("data", "records.py")].status is Status.MIGRATED
    assert results["train.py"].status is Status.MIGRATED  # no queue left: the runners go


def test_the_parent_finds_the_helpers_without_parsing_the_importers(tmp_path, monkeypatch):
    """The workers give each module's `from` imports: looking for the helpers other modules
    import, the run's own process parses only the helpers' module again (Program.tree), not
    their importers, and the result is the same."""
    root = _program(tmp_path)
    expected = {path: r.new_source for path, r in _by_name(api.migrate([root]), root).items()}
    looking, parsed = [], []
    candidates, tree = handed_down.Planner.candidates, api.Program.tree

    def watched(self, paths):
        looking.append(True)
        try:
            return candidates(self, paths)
        finally:
            looking.pop()

    monkeypatch.setattr(handed_down.Planner, "candidates", watched)
    monkeypatch.setattr(api.Program, "tree", lambda self, path: looking and parsed.append(path) or tree(self, path))
    got = {path: r.new_source for path, r in _by_name(api.migrate([root]), root).items()}
    assert got == expected and expected[os.path.join("data", "batching.py")] is not None
    assert parsed == [os.path.join(root, "data", "batching.py")]


PREVIEW = '''import tensorflow as tf

from data.batching import make_batches


def preview():
    return make_batches(tf.zeros([3]), tf.constant(0, tf.int64), 4, False)
'''

THROUGH_MODULE = '''import tensorflow as tf

from data import batching


def preview():
    return batching.make_batches(tf.zeros([3]), tf.constant(0, tf.int64), 4, False)
'''


@pytest.mark.parametrize("other", (PREVIEW, THROUGH_MODULE), ids=("imported", "module_attribute"))
def test_a_caller_left_as_it_is_keeps_the_helper_and_its_callers(tmp_path, other):
    """Migrated, the helper would give that caller its tensors back unbatched: nothing changes."""
    root = _program(tmp_path, {"preview.py": other})
    results = _by_name(api.migrate([root]), root)
    batching = results[os.path.join("data", "batching.py")]
    assert not batching.changed
    assert all("would get its tensors back unbatched" in d.message for d in batching.diagnostics)
    records = results[os.path.join("data", "records.py")]
    assert not records.changed
    assert any("make_batches() of batching.py is not followed: code qmigrate does not migrate with it also "
               "refers to it (preview.py:" in d.message for d in records.diagnostics), records.diagnostics
    assert not results["train.py"].changed


def test_a_helper_reading_its_own_module_names_is_not_followed(tmp_path):
    """The batching arguments would be written in the importer, where MIN_AFTER means nothing."""
    root = _program(tmp_path)
    path = os.path.join(root, "data", "batching.py")
    with open(path) as handle:
        text = handle.read()
    text = text.replace("min_after_dequeue=min_queue_examples)", "min_after_dequeue=MIN_AFTER)")
    text = text.replace("import tensorflow as tf\n", "import tensorflow as tf\n\nMIN_AFTER = 20\n")
    with open(path, "w") as handle:
        handle.write(text)
    results = _by_name(api.migrate([root]), root)
    assert not results[os.path.join("data", "batching.py")].changed
    assert not results[os.path.join("data", "records.py")].changed


def test_threads_the_importer_cannot_write_leave_the_map_on_one_thread(tmp_path):
    """How many threads ran the per-record code changes no example, batch or epoch."""
    root = _program(tmp_path)
    path = os.path.join(root, "data", "batching.py")
    with open(path) as handle:
        text = handle.read()
    text = text.replace("    threads = 2\n", "").replace("num_threads=threads", "num_threads=THREADS")
    text = text.replace("import tensorflow as tf\n", "import tensorflow as tf\n\nTHREADS = 2\n")
    with open(path, "w") as handle:
        handle.write(text)
    results = _by_name(api.migrate([root]), root)
    assert results[os.path.join("data", "batching.py")].status is Status.MIGRATED
    records = results[os.path.join("data", "records.py")]
    assert records.status is Status.MIGRATED
    assert b"dataset.map(parse_record)\n" in records.new_source and b"num_parallel_calls" not in records.new_source


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tfdata")
    run_tf(tf_python("1.8"), "make_data.py", folder)
    return str(folder)


def drain(python, root, function, args, tmp_path, label, entry_text=ENTRY):
    """What run_pipeline.py reads from `function` of an entry module (`entry_text`) written in the
    program at `root` (which is on the path)."""
    entry = os.path.join(root, "entry.py")
    with open(entry, "w") as handle:
        handle.write(entry_text)
    out = str(tmp_path / (label + ".json"))
    finish(start_tf(python, "run_pipeline.py", entry, function, json.dumps(args), 10000, out,
                    env={"PYTHONPATH": root}))
    return load_json(out)


def assert_same_batches(old, new, expected):
    """The same structure, shapes and multiset of `expected` examples."""
    assert new["kind"] == old["kind"]
    assert new["static_shapes"] == old["static_shapes"]
    assert new["batch_shapes"] == old["batch_shapes"]
    assert len(new["examples"]) == expected
    assert Counter(new["examples"]) == Counter(old["examples"])


def script_steps(python, root, command):
    """The last number a script of the program at `root` prints (`command`: its arguments)."""
    done = subprocess.run([python] + command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode == 0, done.stderr[-3000:]
    return int(done.stdout.split()[-1])


@pytest.mark.parametrize("function,arguments,expected", [
    ("train_inputs", dict(batch_size=10), 100),
    ("split_inputs", dict(batch_size=10, split="train"), 50),
    ("split_inputs", dict(batch_size=5, split="test"), 50),
], ids=("literal_flag", "runtime_flag_true", "runtime_flag_false"))
def test_tf1_8_same_examples_before_and_after(function, arguments, expected, data_dir, tmp_path):
    python = tf_python("1.8")
    before = _program(tmp_path)
    after = str(tmp_path / "after")
    migrate_tree(BEFORE, after)
    files = sorted(glob.glob(os.path.join(data_dir, "dict_*")))
    old, new = (drain(python, root, function, dict(arguments, files=files), tmp_path, label)
                for root, label in ((before, "before"), (after, "after")))
    assert_same_batches(old, new, expected)


def test_tf1_8_the_train_script_runs_as_many_steps_without_queue_runners(data_dir, tmp_path):
    python = tf_python("1.8")
    before = _program(tmp_path)
    after = str(tmp_path / "after")
    migrate_tree(BEFORE, after)
    files = sorted(glob.glob(os.path.join(data_dir, "dict_*")))
    steps = [script_steps(python, root, ["train.py"] + files) for root in (before, after)]
    assert steps == [10, 10]  # 2 epochs of 50 examples, batches of 10
