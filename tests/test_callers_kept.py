"""A migration never breaks code it did not rewrite: a helper whose signature the migration would
change stays as it is when other code calls it, and the pipelines call a migrated copy.

Proof by behaviour: each multi-module golden ships a test module of our own that calls the reader
helper the way the tutorial's unit test does (a hand-built queue of file names); it passes under
TensorFlow before and after the whole program is migrated.
"""
import glob
import os
import subprocess

import pytest

from conftest import TESTDATA
from qmigrate import api
from test_golden import assemble_program, migrate_tree
from tfenv import tf_python



def _with_test_module(before_dir):
    marker = os.path.join(before_dir, ".common")
    if not os.path.exists(marker):
        return False
    with open(marker) as handle:
        return "_test.py" in handle.read()


SCENARIOS = sorted(os.path.basename(os.path.dirname(d))
                   for d in glob.glob(os.path.join(TESTDATA, "towers", "*", "before")) if _with_test_module(d))


def test_scenarios_with_test_modules_exist():
    assert SCENARIOS == ["device_list", "per_tower", "shared_batch", "tutorial"]


@pytest.mark.parametrize("tf_version", ("1.8", "1.15"), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_repository_test_module_passes_before_and_after(scenario, tf_version, tmp_path):
    python = tf_python(tf_version)
    before_dir = os.path.join(TESTDATA, "towers", scenario, "before")
    programs = {"before": assemble_program(before_dir, str(tmp_path / "before"))}
    migrate_tree(before_dir, str(tmp_path / "after"))
    programs["after"] = str(tmp_path / "after")
    with open(os.path.join(programs["after"], "cifar10_input.py")) as handle:
        assert "tf.data." in handle.read()  # the program's pipelines were migrated
    for label, folder in programs.items():
        tests = sorted(glob.glob(os.path.join(folder, "*_test.py")))
        assert tests
        for test in tests:
            done = subprocess.run([python, test], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, timeout=300,
                                  env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
            assert done.returncode == 0, (label, test, done.stderr[-3000:])
            assert "records checked" in done.stdout


HELPER = '''import tensorflow as tf


def read_example(filename_queue):
    """Read one example.

    Args:
      filename_queue: a queue of file names,
        read one after another.
      batch: unused.
    """
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    return tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    x = read_example(queue)
    return tf.train.batch([x], batch_size=batch_size)
'''


def _migrate(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    results = api.migrate([str(tmp_path)])
    return {os.path.basename(r.path): r for r in results}


def test_a_helper_nobody_else_calls_changes_in_place(tmp_path):
    result = _migrate(tmp_path, {"reader.py": HELPER})["reader.py"]
    output = result.new_source.decode()
    assert "def read_example(serialized):" in output and "parse_example" not in output
    # Its docstring describes the parameter it takes now.
    assert "serialized: one record read from the files, a scalar string Tensor.\n      batch: unused." in output
    assert "a queue of file names" not in output and "read one after another" not in output


def test_a_helper_another_module_calls_is_kept_and_the_pipeline_calls_a_copy(tmp_path):
    caller = "import reader\n\n\ndef check(queue):\n    return reader.read_example(queue)\n"
    results = _migrate(tmp_path, {"reader.py": HELPER, "check_reader.py": caller})
    output = results["reader.py"].new_source.decode()
    assert "def read_example(filename_queue):" in output  # kept, queue and all
    assert "def parse_example(serialized):" in output
    assert "x = parse_example(serialized)" in output and "tf.train.batch" not in output
    kept = [d for d in results["reader.py"].diagnostics if d.code == "QM204" or "kept as it was" in d.message]
    assert kept and "check_reader.py:5" in kept[0].message and not kept[0].fixed
    assert results["check_reader.py"].new_source is None


def test_a_helper_also_used_unmigrated_in_its_module_is_kept(tmp_path):
    text = HELPER + "\n\nreaders = map(read_example, [])\n"
    output = _migrate(tmp_path, {"reader.py": text})["reader.py"].new_source.decode()
    assert "def read_example(filename_queue):" in output and "def parse_example(serialized):" in output
    assert "readers = map(read_example, [])" in output


def test_a_second_attempt_keeps_every_finding_and_name(tmp_path):
    """A helper partly migrated in its own module makes the engine rewrite the module again; the
    findings and API names of the first look must survive it (they read "QM001 None ..." once)."""
    text = HELPER + ("\n\ndef check(queue):\n    return read_example(queue)\n\n\n"
                     "work = tf.FIFOQueue(10, [tf.string])\n"
                     "item = work.dequeue()\n")
    result = _migrate(tmp_path, {"reader.py": text})["reader.py"]
    messages = {d.code: d.message for d in result.diagnostics}
    assert "QM307" in messages or "QM003" in messages
    assert all("None" not in message for message in messages.values()), messages


def test_a_module_defining_its_own_helper_of_that_name_is_no_caller(tmp_path):
    """Two copies of one reader module (a single- and a multi-GPU variant, say): each calls its own
    `read_example`, so neither copy's helper is kept for the other."""
    results = _migrate(tmp_path, {"reader.py": HELPER, "reader_copy.py": HELPER})
    for name in ("reader.py", "reader_copy.py"):
        output = results[name].new_source.decode()
        assert "def read_example(serialized):" in output and "parse_example" not in output, name
        assert all(d.fixed for d in results[name].diagnostics), name


def test_a_module_importing_the_name_over_its_own_still_counts(tmp_path):
    caller = HELPER + "\nfrom reader import read_example\n\n\ndef check(queue):\n    return read_example(queue)\n"
    results = _migrate(tmp_path, {"reader.py": HELPER, "check_reader.py": caller})
    assert "def read_example(filename_queue):" in results["reader.py"].new_source.decode()


FORWARDING = HELPER.replace('''def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    x = read_example(queue)''', '''def scaled_example(filename_queue, scale):
    x = read_example(filename_queue)
    return x * scale


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    x = scaled_example(queue, 2.0)''')


def test_a_forwarding_helper_another_module_calls_keeps_the_helpers_it_calls(tmp_path):
    """scaled_example() passes its queue to read_example(); kept for another module, it still
    does, so read_example() stays too, and the pipeline calls a copy of each."""
    caller = "import reader\n\n\ndef check(queue):\n    return reader.scaled_example(queue, 1.0)\n"
    results = _migrate(tmp_path, {"reader.py": FORWARDING, "check_reader.py": caller})
    output = results["reader.py"].new_source.decode()
    assert "def scaled_example(filename_queue, scale):\n    x = read_example(filename_queue)" in output
    assert "def read_example(filename_queue):" in output
    assert "def parse_example(serialized):" in output
    assert "def scaled_example_from_record(serialized, scale):\n    x = parse_example(serialized)" in output
    assert "x = scaled_example_from_record(serialized, 2.0)" in output and "tf.train.batch" not in output
    kept = [d for d in results["reader.py"].diagnostics if not d.fixed]
    assert kept and "scaled_example() (itself kept as it was)" in kept[0].message


def test_a_forwarding_helper_nobody_else_calls_changes_in_place(tmp_path):
    output = _migrate(tmp_path, {"reader.py": FORWARDING})["reader.py"].new_source.decode()
    assert "def scaled_example(serialized, scale):\n    x = read_example(serialized)" in output
    assert "def read_example(serialized):" in output and "from_record" not in output


def test_another_module_reaches_a_method_only_through_an_attribute(tmp_path):
    """A plain name or an import in another module is that module's own function, never a method
    of the defining module's class: only `x.read_data` there refers to `Loader.read_data`."""
    from qmigrate.program import Program

    files = {
        "loader.py": "class Loader(object):\n    def read_data(self, queue):\n        return queue\n",
        "own.py": "def build():\n    def read_data():\n        return 1\n    return read_data()\n",
        "imports.py": "from elsewhere import read_data\nread_data()\n",
        "caller.py": "import loader\n\n\ndef run(q):\n    return loader.Loader().read_data(q)\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    paths = sorted(str(tmp_path / name) for name in files)
    program = Program(paths, api._read_python)
    defining = str(tmp_path / "loader.py")
    assert program.references("read_data", defining, method_of="Loader") == [(str(tmp_path / "caller.py"), 5)]
    # As a function's name, each mention counts.
    assert {os.path.basename(path) for path, _ in program.references("read_data", defining)} == {
        "own.py", "imports.py", "caller.py"}
