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


def _migrate(path):
    [result] = api.migrate([path])
    return result


def _relative_findings(result):
    return render.findings([result], show_fixed=True).replace(os.path.dirname(result.path) + os.sep, "")


@pytest.mark.parametrize("before", CASES, ids=lambda p: os.path.basename(p)[: -len(".before.py")])
def test_golden(before, update_goldens):
    stem = before[: -len(".before.py")]
    result = _migrate(before)
    assert result.error is None, result.error
    output = (result.new_source or result.old_source).decode("utf-8")
    findings = _relative_findings(result) + "\n"
    if update_goldens:
        with open(stem + ".after.py", "w", encoding="utf-8") as handle:
            handle.write(output)
        with open(stem + ".findings.txt", "w", encoding="utf-8") as handle:
            handle.write(findings)
    with open(stem + ".after.py", encoding="utf-8") as handle:
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
