"""Golden files: testdata/**/X.before.py migrates to X.after.py with the findings in X.findings.txt.

Regenerate with `pytest tests/test_golden.py --update-goldens` and review with `git diff`.
"""
import glob
import os

import libcst as cst
import pytest

from conftest import TESTDATA
from qmigrate import api, render

CASES = sorted(glob.glob(os.path.join(TESTDATA, "single", "*.before.py")))
NOTEBOOKS = sorted(glob.glob(os.path.join(TESTDATA, "single", "*.before.ipynb")))


def _migrate(path):
    [result] = api.migrate([path])
    return result


def _relative_findings(result):
    return render.findings([result], show_fixed=True).replace(os.path.dirname(result.path) + os.sep, "")


@pytest.mark.parametrize("before", CASES + NOTEBOOKS, ids=lambda p: os.path.basename(p).replace(".before", ""))
def test_golden(before, update_goldens):
    stem, extension = before.rsplit(".before", 1)
    result = _migrate(before)
    assert result.error is None, result.error
    output = (result.new_source or result.old_source).decode("utf-8")
    findings = _relative_findings(result) + "\n"
    if update_goldens:
        with open(stem + ".after" + extension, "w", encoding="utf-8") as handle:
            handle.write(output)
        with open(stem + ".findings.txt", "w", encoding="utf-8") as handle:
            handle.write(findings)
    with open(stem + ".after" + extension, encoding="utf-8") as handle:
        assert output == handle.read()
    with open(stem + ".findings.txt", encoding="utf-8") as handle:
        assert findings == handle.read()


@pytest.mark.parametrize("before", CASES, ids=lambda p: os.path.basename(p)[: -len(".before.py")])
def test_output_parses_and_second_run_changes_nothing(before, tmp_path):
    result = _migrate(before)
    output = result.new_source or result.old_source
    cst.parse_module(output)
    again = tmp_path / os.path.basename(before)
    again.write_bytes(output)
    second = _migrate(str(again))
    assert not second.changed, "a second run changed the migrated file"


def test_every_output_is_python_3_6_syntax(tmp_path):
    """Our users run TF 1.8 on Python 3.6: emitted code must compile there."""
    from tfenv import tf_python
    import subprocess

    outputs = sorted(glob.glob(os.path.join(TESTDATA, "**", "*.after.py"), recursive=True))
    assert outputs
    check = "import sys\nfor p in sys.argv[1:]:\n    compile(open(p, 'rb').read(), p, 'exec')\n"
    done = subprocess.run([tf_python("1.8"), "-c", check] + outputs, stderr=subprocess.PIPE,
                          universal_newlines=True)
    assert done.returncode == 0, done.stderr


SCENARIOS = sorted(glob.glob(os.path.join(TESTDATA, "towers", "*", "before")))


def assemble_program(before_dir, out_dir):
    """A runnable copy of a scenario's before/ program: its files plus the common modules it names."""
    import shutil

    shutil.copytree(before_dir, out_dir)
    marker = os.path.join(before_dir, ".common")
    if os.path.exists(marker):
        with open(marker) as handle:
            for name in handle.read().split():
                shutil.copy(os.path.join(TESTDATA, "towers", "common", name), os.path.join(out_dir, name))
    return out_dir


def migrate_tree(before_dir, out_dir, **options):
    """Assemble a before/ program in out_dir and migrate it in place there, as a user's --write would."""
    from qmigrate.engine import Options

    assemble_program(before_dir, out_dir)
    results = api.migrate([out_dir], Options(**options), write=True)
    assert not [r for r in results if r.error], [r.error for r in results if r.error]
    return results


@pytest.mark.parametrize("before_dir", SCENARIOS, ids=lambda p: os.path.basename(os.path.dirname(p)))
def test_golden_program(before_dir, tmp_path, update_goldens):
    """A multi-module program: every file of before/ migrates to the same file in after/."""
    import shutil

    out = str(tmp_path / "program")
    results = migrate_tree(before_dir, out)
    after_dir = os.path.join(os.path.dirname(before_dir), "after")
    findings = render.findings(results, show_fixed=True).replace(out + os.sep, "") + "\n"
    if update_goldens:
        shutil.rmtree(after_dir, ignore_errors=True)
        shutil.copytree(out, after_dir, ignore=shutil.ignore_patterns("__pycache__", ".common"))
        with open(os.path.join(os.path.dirname(before_dir), "findings.txt"), "w") as handle:
            handle.write(findings)
    for folder, _, names in os.walk(out):  # packages too
        for name in sorted(names):
            if name.endswith(".py"):
                name = os.path.relpath(os.path.join(folder, name), out)
                with open(os.path.join(out, name), "rb") as got, open(os.path.join(after_dir, name), "rb") as want:
                    assert got.read() == want.read(), name
    with open(os.path.join(os.path.dirname(before_dir), "findings.txt")) as handle:
        assert findings == handle.read()
    second = api.migrate([out])
    assert not [r.path for r in second if r.changed], "a second run changed the migrated program"


def test_every_rule_has_a_golden():
    """Each rule's finding appears in some golden program's findings (beside its inline examples)."""
    from qmigrate.rules import ALL_RULES

    findings = ""
    for path in glob.glob(os.path.join(TESTDATA, "**", "*findings.txt"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            findings += handle.read()
    missing = [rule.code for rule in ALL_RULES if " %s " % rule.code not in findings]
    assert missing == []


def test_a_compat_v1_alias_is_never_shadowed(tmp_path):
    """`import tensorflow.compat.v1 as tf` keeps its `tf`: new code reaches TF 2 by another name."""
    from qmigrate.engine import Options
    from qmigrate.targets import TARGETS

    script = tmp_path / "train.py"
    script.write_text("import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()\n\n\n"
                      "def inputs(files):\n"
                      "    queue = tf.train.string_input_producer(files)\n"
                      "    reader = tf.TFRecordReader()\n"
                      "    _, record = reader.read(queue)\n"
                      "    return tf.train.batch([tf.parse_single_example(record, FEATURES)['x']], batch_size=4)\n")
    [result] = api.migrate([str(script)], Options(target=TARGETS["2"]))
    output = result.new_source.decode()
    assert output.startswith("import tensorflow.compat.v1 as tf\nimport tensorflow\ntf.disable_eager_execution()\n")
    assert "tensorflow.compat.v1.data.make_one_shot_iterator(dataset)" in output
    assert "tf.parse_single_example" in output  # the user's own code still goes through compat.v1
