"""The command line as users run it: CliRunner for the logic, a real subprocess for the entry points."""
import os
import shutil
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import TESTDATA
from qmigrate import api
from qmigrate.cli import main
from qmigrate.diagnostics import Failure, Status

CIFAR = os.path.join(TESTDATA, "single", "cifar10_binary.before.py")
CLEAN_SOURCE = "import tensorflow as tf\n\nx = tf.constant(1)\n"


def _copy(tmp_path, name="train.py", source=CIFAR):
    target = tmp_path / name
    shutil.copy(source, target)
    return target


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_diff_prints_a_diff_writes_nothing_and_exits_1(tmp_path):
    script = _copy(tmp_path)
    before = script.read_bytes()
    result = _run(script, "--diff")
    assert result.exit_code == 1
    assert "-  filename_queue = tf.train.string_input_producer" in result.output
    assert "+  dataset = tf.data.Dataset.from_tensor_slices(filenames)" in result.output
    assert "\x1b[" not in result.output  # not a terminal: no colour
    assert script.read_bytes() == before


def test_diff_colour_on_request(tmp_path):
    result = CliRunner().invoke(main, [str(_copy(tmp_path)), "--diff", "--color"], color=True)
    assert "\x1b[32m+" in result.output


def test_check_lists_findings_and_writes_nothing(tmp_path):
    script = _copy(tmp_path)
    before = script.read_bytes()
    result = _run(script, "--check")
    assert result.exit_code == 1
    assert "%s:36:20: QM101 [fixed] string_input_producer" % script in result.output
    assert script.read_bytes() == before


def test_clean_file_exits_0(tmp_path):
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN_SOURCE)
    assert _run(clean, "--check").exit_code == 0
    assert _run(clean, "--diff").exit_code == 0


def test_unparsable_file_is_reported_exit_2_and_others_still_processed(tmp_path):
    broken = tmp_path / "a_broken.py"
    broken.write_bytes(b"def broken(:\nimport tensorflow as tf\ntf.train.batch([x], 2)\n")
    script = _copy(tmp_path, "b_train.py")
    result = _run(tmp_path, "--write")
    assert result.exit_code == 2
    assert "%s: error: does not parse" % broken in result.output
    assert broken.read_bytes() == b"def broken(:\nimport tensorflow as tf\ntf.train.batch([x], 2)\n"
    assert b"tf.data.Dataset" in script.read_bytes()


def test_write_rewrites_atomically_keeps_mode_and_exits_0_when_all_migrated(tmp_path):
    script = _copy(tmp_path)
    os.chmod(script, 0o755)
    result = _run(script, "--write")
    assert result.exit_code == 0, result.output
    with open(os.path.join(TESTDATA, "single", "cifar10_binary.after.py"), "rb") as handle:
        assert script.read_bytes() == handle.read()
    assert stat.S_IMODE(os.stat(script).st_mode) == 0o755
    assert sorted(os.listdir(tmp_path)) == ["train.py"]  # no temporary file left
    assert _run(script, "--check").exit_code == 0  # nothing left to migrate


def test_write_exits_1_when_findings_are_left(tmp_path):
    script = _copy(tmp_path, source=os.path.join(TESTDATA, "single", "diagnosed_left_alone.before.py"))
    before = script.read_bytes()
    result = _run(script, "--write")
    assert result.exit_code == 1
    assert script.read_bytes() == before
    assert "not rewritten: its `shapes=` is computed" in result.output


def test_write_follows_a_symlink_and_keeps_it(tmp_path):
    script = _copy(tmp_path)
    link = tmp_path / "link.py"
    os.symlink(script.name, link)
    assert _run(link, "--write").exit_code == 0
    assert os.path.islink(link)
    assert b"tf.data.Dataset" in script.read_bytes()


def test_directories_recurse_over_py_files(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    _copy(tmp_path / "pkg" / "sub", "deep.py")
    (tmp_path / "pkg" / "notes.txt").write_text("tf.train.batch")
    result = _run(tmp_path, "--check")
    assert result.exit_code == 1
    assert "deep.py:36:20: QM101" in result.output
    assert "notes.txt" not in result.output


def test_exit_zero_still_reports(tmp_path):
    result = _run(_copy(tmp_path), "--check", "--exit-zero")
    assert result.exit_code == 0
    assert "QM302" in result.output


def test_list_rules_and_explain():
    listing = _run("--list-rules")
    assert listing.exit_code == 0
    assert "QM302  ShuffleBatch" in listing.output
    explained = _run("--explain", "QM302")
    assert explained.exit_code == 0
    assert "## Fix safety" in explained.output
    assert _run("--explain", "QM999").exit_code == 2


@pytest.mark.parametrize("command", [[sys.executable, "-m", "qmigrate"], [shutil.which("qmigrate") or "qmigrate"]])
def test_entry_points_run_for_real(command, tmp_path):
    script = _copy(tmp_path)
    done = subprocess.run(command + [str(script), "--diff"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.returncode == 1
    assert b"+  dataset = tf.data.Dataset.from_tensor_slices(filenames)" in done.stdout
    assert b"\x1b[" not in done.stdout  # piped: plain
    helped = subprocess.run(command + ["--help"], stdout=subprocess.PIPE)
    assert helped.returncode == 0 and b"--write" in helped.stdout


def test_suppression_comment_keeps_the_pipeline_and_silences_the_code(tmp_path):
    script = tmp_path / "train.py"
    source = open(CIFAR).read().replace("min_after_dequeue=min_queue_examples)",
                                        "min_after_dequeue=min_queue_examples)  # qmigrate: ignore[QM302]")
    script.write_text(source)
    result = _run(script, "--write")
    assert script.read_text() == source  # nothing rewritten: the pipeline stays whole
    assert "QM302" not in result.output
    assert "QM101 string_input_producer queue feeds a reader; not rewritten: a line of its pipeline says" \
        in result.output
    assert result.exit_code == 1


def test_gitignore_include_exclude_and_notebooks(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated/\n")
    for folder in ("generated", "src", "src/vendor"):
        (tmp_path / folder).mkdir(exist_ok=True)
        _copy(tmp_path / folder, "train.py")
    (tmp_path / "src" / "explore.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "source": ["import tensorflow as tf\\n", '
        '"q = tf.train.string_input_producer(files)"]}]}')
    (tmp_path / "src" / "plain.ipynb").write_text('{"cells": []}')
    result = _run(tmp_path, "--check", "--exclude", "*/vendor/*")
    assert "generated" not in result.output and "vendor" not in result.output
    assert "src/train.py:36:20: QM101" in result.output
    # a notebook is migrated as its code cells; this one, laid out on one line, is found there
    assert "src/explore.ipynb:1:" in result.output and "QM101 string_input_producer" in result.output
    assert "plain.ipynb" not in result.output
    only = _run(tmp_path, "--check", "--include", "*.ipynb")
    assert "train.py" not in only.output and "explore.ipynb:1:" in only.output
    assert "2 files checked (1 skipped by the prefilter)" in only.output


def test_parallel_run_gives_the_same_results_in_the_same_order(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(os.path.join(TESTDATA, "single"), tree / "single")
    shutil.copytree(os.path.join(TESTDATA, "towers", "tutorial", "before"), tree / "tutorial")
    for name in ("cifar10.py", "cifar10_input.py"):
        shutil.copy(os.path.join(TESTDATA, "towers", "common", name), tree / "tutorial")
    one = _run(tree, "--check", "-j", "1")
    two = _run(tree, "--check", "-j", "2")
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output
    assert "tutorial/cifar10_multi_gpu_train.py:79:19: QM401 [fixed]" in two.output


def test_select_ignore_and_pyproject_configuration(tmp_path):
    script = _copy(tmp_path)
    before = script.read_bytes()
    ignored = _run(script, "--write", "--ignore", "QM3")
    assert script.read_bytes() == before  # a pipeline holding an ignored rule's call is left whole
    assert "QM302" not in ignored.output and "QM101" in ignored.output
    selected = _run(script, "--check", "--select", "QM302")
    assert "QM302" in selected.output and "QM101" not in selected.output
    (tmp_path / "pyproject.toml").write_text('[tool.qmigrate]\nignore = ["QM302"]\ntarget-tf = "1.10"\n')
    configured = _run(script, "--check")
    assert "QM302" not in configured.output
    # The command line's --ignore replaces the configured one; the configured target still holds.
    assert "batch(batch_size, drop_remainder=True)" in _run(script, "--diff", "--ignore", "QM9").output
    (tmp_path / "pyproject.toml").write_text('[tool.qmigrate]\ntarget-tf = "1.10"\n')
    assert "batch(batch_size, drop_remainder=True)" in _run(script, "--diff").output
    assert "batch_and_drop_remainder" in _run(script, "--diff", "--target-tf", "1.8").output
    (tmp_path / "pyproject.toml").write_text('[tool.qmigrate]\nno-such-key = 1\n')
    broken = _run(script, "--check")
    assert broken.exit_code == 2 and "unknown key [tool.qmigrate] no-such-key" in broken.output


def test_seed_fixes_the_shards_file_order_across_processes(tmp_path):
    """Without --seed each process draws the shards' shared file-order seed (shards partition an
    epoch inside one process); with it, every process shuffles the files the same way."""
    from test_golden import assemble_program

    before = os.path.join(TESTDATA, "towers", "tutorial", "before")
    for label, extra in (("drawn", []), ("given", ["--seed", "1234"])):
        program = assemble_program(before, str(tmp_path / label))
        done = CliRunner().invoke(main, [program, "--write"] + extra)
        assert done.exit_code in (0, 1), done.output
        with open(os.path.join(program, "cifar10_input.py")) as handle:
            migrated = handle.read()
        if label == "drawn":
            assert "_FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)" in migrated
            assert "seed=_FILE_ORDER_SEED)" in migrated
        else:
            assert "_FILE_ORDER_SEED" not in migrated and "import random" not in migrated
            assert "dataset.shuffle(tf.size(filenames, out_type=tf.int64), seed=1234)" in migrated
    (tmp_path / "pyproject.toml").write_text('[tool.qmigrate]\nseed = "x"\n')
    broken = CliRunner().invoke(main, [str(tmp_path / "given"), "--config", str(tmp_path / "pyproject.toml")])
    assert broken.exit_code == 2 and "seed must be a int" in broken.output


def test_an_internal_error_keeps_its_traceback_for_debug(tmp_path, monkeypatch):
    """A bug of ours fails one file (left unchanged), says so, and --debug prints where it happened."""
    from qmigrate import engine

    script = _copy(tmp_path, "train.py")
    before = script.read_bytes()

    def broken_analysis(path, source, options, module=None, edits=None, keep_helpers=None, parsed=None,
                        move_queues=True, foreign=None, handed=None, chain=None, uncalled=()):
        raise KeyError("a planted bug")

    monkeypatch.setattr(engine, "analyse", broken_analysis)
    [result] = api.migrate([str(script)])
    assert result.status is Status.FAILED and result.failure is Failure.INTERNAL
    assert result.error.startswith("internal error in qmigrate (KeyError: 'a planted bug'); file left unchanged")
    assert "broken_analysis" in result.traceback and "Traceback (most recent call last)" in result.traceback
    quiet = _run(script, "--write", "-j", "1")
    assert quiet.exit_code == 2
    assert "%s: error: internal error in qmigrate (KeyError" % script in quiet.output
    assert "Traceback" not in quiet.output
    loud = _run(script, "--write", "-j", "1", "--debug")
    assert "Traceback (most recent call last)" in loud.output and "in broken_analysis" in loud.output
    assert script.read_bytes() == before
