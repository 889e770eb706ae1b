"""A shipped library's public function that starts its callers' queue runners keeps them
(library_runners.py): the package's users outside the run may build queues of their own."""
import ast
import os
import subprocess

import pytest

from qmigrate import api, library_runners
from qmigrate.engine import Options
from tfenv import tf_python

TRAINER = '''import tensorflow as tf


def fit(sess, train_op, steps, use_coordinator=True):
    """use_coordinator: start the queue runners of the caller's input pipeline."""
    if use_coordinator:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    out = [sess.run(train_op).tolist() for _ in range(steps)]
    if use_coordinator:
        coord.request_stop()
        coord.join(threads)
    return out
'''

FIT_TEST = '''import tensorflow as tf
import mylib

with tf.Session() as sess:
    x = tf.train.batch([tf.constant([0., 1., 2., 3.])], batch_size=2, enqueue_many=True)
    print(mylib.fit(sess, x, 2))
'''

USER = '''import tensorflow as tf
import mylib  # a user of the package, outside the run, written as its documentation says

x = tf.train.batch([tf.constant([0., 1., 2., 3.])], batch_size=2, enqueue_many=True)
with tf.Session() as sess:
    print("DONE", mylib.fit(sess, x * 2.0, 3))
'''


def _tree(root, setup=True, trainer=TRAINER):
    files = {"mylib/__init__.py": "from mylib.trainer import fit\n", "mylib/trainer.py": trainer,
             "tests/fit_test.py": FIT_TEST}
    if setup:
        files["setup.py"] = 'from setuptools import setup\nsetup(name="mylib", packages=["mylib"])\n'
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {os.path.relpath(r.path, str(root)): r for r in api.migrate([str(root)], Options(), write=True)}


def test_a_shipped_librarys_public_start_stays_as_a_note(tmp_path):
    results = _tree(tmp_path)
    assert "tf.data" in (tmp_path / "tests" / "fit_test.py").read_text()  # the run's own queue migrated
    trainer = results["mylib/trainer.py"]
    assert not trainer.changed and not trainer.remaining
    notes = [d for d in trainer.diagnostics if d.note]
    assert [d.code for d in notes] == ["QM502", "QM501"]
    assert "fit() is a public function of a package that setup.py ships (../setup.py)" in notes[1].message


def test_without_a_project_file_the_runners_go_with_the_programs_queues(tmp_path):
    # A folder of modules no setup.py ships: its functions serve the run's own programs.
    _tree(tmp_path, setup=False)
    assert "start_queue_runners" not in (tmp_path / "mylib" / "trainer.py").read_text()


def test_a_private_helper_of_the_package_loses_them(tmp_path):
    _tree(tmp_path, trainer=TRAINER.replace("def fit(", "def _fit(") + "\n\nfit = _fit\n")
    assert "start_queue_runners" not in (tmp_path / "mylib" / "trainer.py").read_text()


@pytest.mark.parametrize("relative, expected", [
    ("pkg/mod.py", True), ("pkg/sub/mod.py", True), ("loose.py", False), ("pkg/tests/mod.py", False),
    ("pkg/mod_test.py", False), ("pkg/test_mod.py", False),
])
def test_what_counts_as_a_module_of_a_shipped_package(tmp_path, relative, expected):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    for folder in ("pkg", "pkg/sub", "pkg/tests"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("")
    path = tmp_path / relative
    path.write_text(TRAINER)
    assert (library_runners.reason(str(path), ast.parse(TRAINER)) is not None) == expected


def test_a_user_outside_the_run_still_gets_its_batches(tmp_path):
    """Under TF 1.8: the user's script, with its own queue, runs to its end against the migrated
    package (it waited for ever on its first dequeue when fit() lost its runners)."""
    python = tf_python("1.8")
    _tree(tmp_path / "tree")
    (tmp_path / "user.py").write_text(USER)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=str(tmp_path / "tree"))
    done = subprocess.run([python, str(tmp_path / "user.py")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "DONE [[0.0, 2.0], [4.0, 6.0], [0.0, 2.0]]"


def test_a_packaged_script_loses_them(tmp_path):
    # A trainer package's entry point (`python -m trainer.task`): its functions serve its own program.
    _tree(tmp_path, trainer=TRAINER + "\n\nif __name__ == '__main__':\n    fit(None, None, 0)\n")
    assert "start_queue_runners" not in (tmp_path / "mylib" / "trainer.py").read_text()
