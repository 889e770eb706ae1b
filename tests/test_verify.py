"""`qmigrate verify` under real TensorFlow 1.8 and 1.15, on our goldens and generated data.

Equivalent migrations must pass; wrong migrations planted as small text edits of the golden
after-files (made here, in tmp_path) must be caught, each with the difference it makes.
"""
import json
import os
import shutil

import pytest
from click.testing import CliRunner

from conftest import TESTDATA
from qmigrate import verify
from qmigrate.cli import main
from tfenv import run_tf, tf_python

SINGLE = os.path.join(TESTDATA, "single")
TOWERS = os.path.join(TESTDATA, "towers")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verifydata")
    run_tf(tf_python("1.8"), "make_data.py", folder)
    return str(folder)


def _legacy(tmp_path, name, edit=None):
    """testdata/single/<name>.before.py copied as <tmp>/legacy/<name>.py (a module of its own)."""
    folder = tmp_path / "legacy"
    folder.mkdir(exist_ok=True)
    text = (open(os.path.join(SINGLE, name + ".before.py")).read())
    target = folder / (name + ".py")
    target.write_text(_edited(text, edit))
    return target


def _planted(tmp_path, source, edit):
    """A wrong migration: the golden after-file with `edit` = (old, new) applied (old must occur)."""
    folder = tmp_path / "planted"
    folder.mkdir(exist_ok=True)
    target = folder / os.path.basename(source).replace(".after.py", ".py")
    target.write_text(_edited(open(source).read(), edit))
    return target


def _edited(text, edit):
    if edit is None:
        return text
    old, new = edit
    assert old in text, old
    return text.replace(old, new)


def _tutorial(tmp_path):
    """The tutorial layout as a user has it: input module, model module and train script in one folder."""
    folder = tmp_path / "cifar10"
    folder.mkdir()
    for path in ("common/cifar10_input.py", "common/cifar10.py", "tutorial/before/cifar10_multi_gpu_train.py"):
        shutil.copy(os.path.join(TOWERS, path), str(folder))
    return folder


def _verify(python, target, args, *options):
    """Run the CLI; (exit code, JSON report or None, output)."""
    result = CliRunner().invoke(main, ["verify", str(target), "--args", args, "--python", python,
                                       "--output-format", "json"] + [str(o) for o in options])
    try:
        report = json.loads(result.output)
    except ValueError:
        report = None
    return result.exit_code, report, result.output


def _check(report, name):
    found = [c for c in report["checks"] if c["check"] == name]
    assert found, (name, report["checks"])
    return found[0]


def _only_difference(report, name):
    different = [c["check"] for c in report["checks"] if c["status"] == "different"]
    assert name in different, report["checks"]
    return _check(report, name)["detail"]


# ---- equivalent migrations pass -----------------------------------------------------------------

EQUIVALENT = [
    ("cifar10_binary", "inputs", "data_dir=%(d)r, batch_size=32, num_epochs=2"),
    ("csv_header", "csv_inputs", "csv_files=sorted(__import__('glob').glob(%(d)r + '/iris_*')), batch_size=10, seed=7"),
    ("estimator_input_fn", "make_input_fn", "files=[%(d)r + '/dict_0.tfrecords', %(d)r + '/dict_1.tfrecords'], "
                                            "batch_size=10, num_epochs=2"),
]


@pytest.mark.parametrize("version", ("1.8", "1.15"), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("name,function,args", EQUIVALENT, ids=[case[0] for case in EQUIVALENT])
def test_equivalent_migration_passes(name, function, args, version, data_dir, tmp_path):
    legacy = _legacy(tmp_path, name)
    before = sorted(os.listdir(str(legacy.parent)))
    code, report, output = _verify(tf_python(version), "%s:%s" % (legacy, function), args % {"d": data_dir},
                                   "--batches", 50, "--target-tf", version)
    assert code == 0, output
    assert report["result"] == "equivalent"
    assert _check(report, "examples")["status"] == "same"
    assert _check(report, "order")["status"] == "same"
    assert report["sides"]["legacy"]["ended"] and report["sides"]["migrated"]["ended"]
    assert report["throughput"]["legacy"] > 0 and report["throughput"]["migrated"] > 0
    # Nothing written beside the user's file: the migration lives in a temporary folder, no bytecode.
    assert sorted(os.listdir(str(legacy.parent))) == before


@pytest.mark.parametrize("version", ("1.8", "1.15"), ids=lambda v: "tf" + v)
def test_tutorial_towers_are_disjoint_and_cover_an_epoch(version, data_dir, tmp_path):
    folder = _tutorial(tmp_path)
    code, report, output = _verify(tf_python(version), "%s:distorted_inputs" % (folder / "cifar10_input.py"),
                                   "data_dir=%r, batch_size=32" % data_dir, "--batches", 60, "--towers", 2,
                                   "--target-tf", version)
    assert code == 0, output
    towers = _check(report, "towers")
    assert towers["status"] == "same" and "of 320 examples" in towers["detail"], towers
    assert _check(report, "examples")["status"] == "same"
    # The tutorial's crop, flip, brightness and contrast were made deterministic, and said so.
    assert any("tf.image.random_flip_left_right" in w and "tf.random_crop" in w for w in report["warnings"])
    assert report["sides"]["legacy"]["tf_version"].startswith(version)


def test_keep_random_compares_shapes_only(data_dir, tmp_path):
    folder = _tutorial(tmp_path)
    code, report, output = _verify(tf_python("1.8"), "%s:distorted_inputs" % (folder / "cifar10_input.py"),
                                   "data_dir=%r, batch_size=16" % data_dir, "--batches", 20, "--keep-random")
    assert code == 0, output
    assert not report["warnings"]
    assert _check(report, "static shapes")["status"] == "same"
    assert _check(report, "examples")["status"] == "not checked"


def test_text_report(data_dir, tmp_path):
    legacy = _legacy(tmp_path, "cifar10_binary")
    result = CliRunner().invoke(main, ["verify", "%s:inputs" % legacy, "--python", tf_python("1.8"), "--args",
                                       "data_dir=%r, batch_size=32, num_epochs=1" % data_dir])
    assert result.exit_code == 0, result.output
    assert "same         examples      the same 320 examples (320 distinct)" in result.output
    assert result.output.rstrip().endswith("result: equivalent")


# ---- planted wrong migrations are caught --------------------------------------------------------

# The golden's shuffle buffer (min_after_dequeue, or the capacity should that be 0).
BUFFER = "min_queue_examples or min_queue_examples + 3 * batch_size"


def test_dropped_epoch(data_dir, tmp_path):
    legacy = _legacy(tmp_path, "cifar10_binary")
    planted = _planted(tmp_path, os.path.join(SINGLE, "cifar10_binary.after.py"),
                       ("shuffle_and_repeat(%s, num_epochs)" % BUFFER, "shuffle_and_repeat(%s, 1)" % BUFFER))
    code, report, output = _verify(tf_python("1.8"), "%s:inputs" % legacy, "data_dir=%r, batch_size=32, num_epochs=2"
                                   % data_dir, "--against", planted)
    assert code == 1, output
    detail = _only_difference(report, "examples")
    assert "legacy 640 examples (320 distinct), migrated 320 (320 distinct)" in detail
    assert "320 seen fewer times in migrated (320: 2 times -> 1)" in detail


def test_shuffle_removed(data_dir, tmp_path):
    legacy = _legacy(tmp_path, "cifar10_binary")
    text = open(os.path.join(SINGLE, "cifar10_binary.after.py")).read()
    unshuffled = tmp_path / "cifar10_binary.py"
    kept = [line for line in text.splitlines(True) if "dataset.shuffle(" not in line]
    assert len(kept) == len(text.splitlines(True)) - 1  # the file shuffle
    record_shuffle = "dataset.apply(tf.contrib.data.shuffle_and_repeat(%s, num_epochs))" % BUFFER
    assert record_shuffle in text
    unshuffled.write_text("".join(kept).replace(record_shuffle, "dataset.repeat(num_epochs)"))
    code, report, output = _verify(tf_python("1.8"), "%s:inputs" % legacy, "data_dir=%r, batch_size=32, num_epochs=1"
                                   % data_dir, "--against", unshuffled)
    assert code == 1, output
    assert _check(report, "examples")["status"] == "same"
    assert _only_difference(report, "order").startswith("legacy shuffled record by record, migrated in the same order")


def test_record_shuffle_removed(data_dir, tmp_path):
    # The files are still shuffled, the records within them no longer.
    legacy = _legacy(tmp_path, "cifar10_binary")
    planted = _planted(tmp_path, os.path.join(SINGLE, "cifar10_binary.after.py"),
                       ("dataset.apply(tf.contrib.data.shuffle_and_repeat(%s, num_epochs))" % BUFFER,
                        "dataset.repeat(num_epochs)"))
    code, report, output = _verify(tf_python("1.8"), "%s:inputs" % legacy, "data_dir=%r, batch_size=32, num_epochs=1"
                                   % data_dir, "--against", planted)
    assert code == 1, output
    assert _check(report, "examples")["status"] == "same"
    assert _only_difference(report, "order").startswith(
        "legacy shuffled record by record, migrated shuffled in blocks (e.g. files)")


CSV_ARGS = "csv_files=sorted(__import__('glob').glob(%r + '/iris_*')), batch_size=%d, seed=7"
STRING_DEFAULTS = ("DEFAULTS = [[0.0], [0.0], [0.0], [0.0], [0]]", "DEFAULTS = [['']] * 5")


def test_lost_skip_header_lines(data_dir, tmp_path):
    # With string columns the header parses as a row: it comes out as an extra example per file.
    legacy = _legacy(tmp_path, "csv_header", STRING_DEFAULTS)
    folder = tmp_path / "wrong"
    folder.mkdir()
    planted = folder / "csv_header.py"
    planted.write_text(_edited(_edited(open(os.path.join(SINGLE, "csv_header.after.py")).read(), STRING_DEFAULTS),
                               ("TextLineDataset(filename).skip(1)", "TextLineDataset(filename)")))
    code, report, output = _verify(tf_python("1.8"), "%s:csv_inputs" % legacy, CSV_ARGS % (data_dir, 3),
                                   "--against", planted)
    assert code == 1, output
    assert "3 extra in migrated (1 distinct)" in _only_difference(report, "examples")


def test_lost_skip_header_lines_fails_to_parse(data_dir, tmp_path):
    # With number columns the header cannot be parsed: the migrated side fails, with the reason.
    legacy = _legacy(tmp_path, "csv_header")
    planted = _planted(tmp_path, os.path.join(SINGLE, "csv_header.after.py"),
                       ("TextLineDataset(filename).skip(1)", "TextLineDataset(filename)"))
    code, report, output = _verify(tf_python("1.8"), "%s:csv_inputs" % legacy, CSV_ARGS % (data_dir, 10),
                                   "--against", planted)
    assert code == 2, output
    assert report["result"] == "failed" and report["sides"]["legacy"]["ok"]
    failed = report["sides"]["migrated"]
    assert failed["stage"] == "drain" and "sepal_length" in failed["error"], failed


def test_batch_remainder_kept(data_dir, tmp_path):
    # 90 rows in batches of 20: the legacy shuffle_batch drops the last 10, the planted .batch keeps them.
    legacy = _legacy(tmp_path, "csv_header")
    planted = _planted(tmp_path, os.path.join(SINGLE, "csv_header.after.py"),
                       ("dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))",
                        "dataset.batch(batch_size)"))
    code, report, output = _verify(tf_python("1.8"), "%s:csv_inputs" % legacy, CSV_ARGS % (data_dir, 20),
                                   "--against", planted)
    assert code == 1, output
    assert "[0]: legacy [20, 4], migrated [None, 4]" in _only_difference(report, "static shapes")
    assert "only migrated gives batches of shape [[10, 4], [10]]" in _only_difference(report, "batch shapes")
    assert "legacy 80 examples (80 distinct), migrated 90 (90 distinct); 10 extra in migrated" in _only_difference(
        report, "examples")


@pytest.mark.parametrize("edit,expected", [
    # A shard that overlaps: every tower takes shard 0.
    (("dataset.shard(num_shards, shard_index)", "dataset.shard(num_shards, 0)"), "192 examples reach more than one tower (192 + 192 examples"),
    # A per-tower pipeline that reads everything: no shard at all.
    (("  dataset = dataset.shard(num_shards, shard_index)\n", ""), "320 examples reach more than one tower (320 + 320 examples"),
], ids=["overlapping-shard", "per-tower-reads-everything"])
def test_towers_that_overlap(edit, expected, data_dir, tmp_path):
    folder = _tutorial(tmp_path)
    planted = _planted(tmp_path, os.path.join(TOWERS, "tutorial", "after", "cifar10_input.py"), edit)
    code, report, output = _verify(tf_python("1.8"), "%s:distorted_inputs" % (folder / "cifar10_input.py"),
                                   "data_dir=%r, batch_size=32" % data_dir, "--batches", 40, "--towers", 2,
                                   "--against", planted)
    assert code == 1, output
    assert expected in _only_difference(report, "towers"), report["checks"]


def test_failing_side_is_reported_with_its_traceback(data_dir, tmp_path):
    legacy = _legacy(tmp_path, "cifar10_binary")
    code, report, output = _verify(tf_python("1.8"), "%s:inputs" % legacy, "data_dir=%r, batch_size=32, colour=1"
                                   % data_dir)
    assert code == 2, output
    for side in ("legacy", "migrated"):
        assert report["sides"][side]["stage"] == "build"
        assert "unexpected keyword argument 'colour'" in report["sides"][side]["error"]
        assert "verify_runner" not in report["sides"][side]["error"]


# ---- no TensorFlow needed -----------------------------------------------------------------------

def test_help_says_it_runs_the_users_code():
    result = CliRunner().invoke(main, ["verify", "--help"])
    assert result.exit_code == 0 and "THIS RUNS YOUR CODE" in result.output
    assert "qmigrate verify" in CliRunner().invoke(main, ["--help"]).output


@pytest.mark.parametrize("target,args,message", [
    ("nofile.py:f", "", "no such file"),
    (__file__, "", "FILE.py:FUNCTION"),
    (__file__ + ":f", "1, x=2", "keyword arguments only"),
    (__file__ + ":f", "x=", "not Python keyword arguments"),
])
def test_bad_requests_exit_2(target, args, message):
    result = CliRunner().invoke(main, ["verify", target, "--args", args, "--python", "/bin/sh"])
    assert result.exit_code == 2 and message in result.output


def test_multiset_difference_counts_missing_extra_and_duplicated():
    from collections import Counter

    text = verify._multiset_difference(Counter(a=2, b=1, c=1, d=1), Counter(a=1, b=3, c=1, e=2))
    assert text == ("legacy 5 examples (4 distinct), migrated 7 (4 distinct); 1 missing from migrated; "
                    "2 extra in migrated (1 distinct); 1 seen fewer times in migrated (1: 2 times -> 1); "
                    "1 duplicated in migrated (1: 1 times -> 3)")


def test_default_python_is_the_first_on_path_that_imports_tensorflow(tmp_path, monkeypatch):
    python = tf_python("1.8")
    plain = tmp_path / "bin"
    plain.mkdir()
    (plain / "python").symlink_to(os.path.realpath(shutil.which("python3")))  # no tensorflow here
    monkeypatch.setenv("PATH", os.pathsep.join([str(plain), os.path.dirname(python), os.environ["PATH"]]))
    assert verify.find_python() == os.path.join(os.path.dirname(python), "python")


def test_order_judgement():
    ordered = list(range(600))
    assert verify.order_kind(ordered, ordered) == "same"
    # Threads racing move a few examples by a few places: still the same order.
    raced = list(ordered)
    for i in range(0, 600, 10):
        raced[i], raced[i + 3] = raced[i + 3], raced[i]
    assert verify.order_kind(ordered, raced) == "same"
    # Files of 60 examples in another order, records in file order within them: shuffled in blocks.
    files = [list(range(start, start + 60)) for start in range(0, 600, 60)]
    assert verify.order_kind(ordered, sum(files[::-1], [])) == "blocks"
    # Record by record.
    import random

    shuffled = list(ordered)
    random.Random(0).shuffle(shuffled)
    assert verify.order_kind(ordered, shuffled) == "records"
    # Too short to tell the two apart, or to tell anything.
    assert verify.order_kind(ordered[:100], shuffled[:100]) == "shuffled"
    assert verify.order_kind(ordered[:10], ordered[:10]) is None
