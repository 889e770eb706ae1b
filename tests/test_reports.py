"""CI-facing reports: SARIF 2.1.0 validated against its schema, GitHub annotations, Markdown, JSON."""
import json
import os

import jsonschema
from click.testing import CliRunner

from conftest import ROOT, TESTDATA
from qmigrate.cli import main

SCHEMA = os.path.join(ROOT, "tests", "schemas", "sarif-2.1.0-rtm.5.json")
DIAGNOSED = os.path.join(TESTDATA, "single", "diagnosed_left_alone.before.py")


def _report(fmt, *paths):
    result = CliRunner().invoke(main, list(paths) + ["--check", "--output-format", fmt])
    return result.exit_code, result.output


def _with_broken_file(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow as tf\ndef f(:\n    tf.train.batch([x], 2)\n")
    return str(broken)


def test_sarif_validates_against_the_sarif_2_1_0_schema(tmp_path):
    code, output = _report("sarif", DIAGNOSED, _with_broken_file(tmp_path))
    assert code == 2
    log = json.loads(output)
    with open(SCHEMA, encoding="utf-8") as handle:
        jsonschema.validate(log, json.load(handle))
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"QM101", "QM301", "QM401", "QM901"}
    assert len(run["results"]) == 9
    first = run["results"][0]
    assert first["ruleId"] == "QM101"
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 9, "startColumn": 13}
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "does not parse" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


def test_github_annotations(tmp_path):
    code, output = _report("github", DIAGNOSED, _with_broken_file(tmp_path))
    assert code == 2
    lines = output.splitlines()
    shown = os.path.relpath(DIAGNOSED).replace(os.sep, "/")
    assert lines[0].startswith("::warning file=%s,line=9,col=13,title=QM101::" % shown)
    assert any(line.startswith("::error file=") and "broken.py" in line for line in lines)
    assert all("\n" not in line for line in lines)


def test_markdown_summary_counts():
    code, output = _report("markdown", DIAGNOSED)
    assert code == 1
    assert "| 1 | 0 | 9 | 0 |" in output
    assert output.count("| QM301 |") == 3


def test_json_report_lists_every_finding():
    code, output = _report("json", DIAGNOSED)
    report = json.loads(output)
    [entry] = report["files"]
    assert entry["status"] == "diagnosed" and not entry["changed"]
    assert [d["code"] for d in entry["diagnostics"]].count("QM301") == 3
