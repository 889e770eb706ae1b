"""CI-facing reports: every format names every queue call a check fails on (migratable or left, with
why), SARIF 2.1.0 validated against its schema with fixes that reproduce the migration, GitHub
annotations, Markdown for a pull-request comment, JSON."""
import json
import os
import re
import shutil

import jsonschema
import pytest
from click.testing import CliRunner

from conftest import ROOT, TESTDATA
from qmigrate import api, render
from qmigrate.cli import main

SCHEMA = os.path.join(ROOT, "tests", "schemas", "sarif-2.1.0-rtm.5.json")
DIAGNOSED = os.path.join(TESTDATA, "single", "diagnosed_left_alone.before.py")
MIGRATABLE = os.path.join(TESTDATA, "single", "csv_header.before.py")
WITH_NOTES = os.path.join(TESTDATA, "single", "hand_built_queues.before.py")


def _report(fmt, *paths):
    result = CliRunner().invoke(main, list(paths) + ["--check", "--output-format", fmt])
    return result.exit_code, result.output


def _with_broken_file(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow as tf\ndef f(:\n    tf.train.batch([x], 2)\n")
    return str(broken)


def _validate(log):
    with open(SCHEMA, encoding="utf-8") as handle:
        jsonschema.validate(log, json.load(handle))


def test_sarif_validates_against_the_sarif_2_1_0_schema(tmp_path):
    code, output = _report("sarif", DIAGNOSED, MIGRATABLE, _with_broken_file(tmp_path))
    assert code == 2
    log = json.loads(output)
    _validate(log)
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"QM101", "QM301", "QM401", "QM901"}
    assert len(run["results"]) == 9 + 3
    first = run["results"][0]
    assert first["ruleId"] == "QM101"
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 9, "startColumn": 13}
    assert "fixes" not in first and "not rewritten" in first["message"]["text"]
    migratable = [r for r in run["results"] if r["properties"]["migratable"]]
    assert [r["ruleId"] for r in migratable] == ["QM101", "QM203", "QM302"]
    assert all(r["fixes"][0]["artifactChanges"][0]["replacements"] for r in migratable)
    assert all("qmigrate --write" in r["message"]["text"] for r in migratable)
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "does not parse" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


def _apply(text, replacements):
    """What a code-scanning tool does with a SARIF fix: the replacements applied to the old text."""
    lines = render._lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line, column):
        return starts[line - 1] + column - 1

    out, cursor = [], 0
    for replacement in replacements:  # in file order, as difflib gives them
        region = replacement["deletedRegion"]
        begin = offset(region["startLine"], region["startColumn"])
        end = offset(region["endLine"], region["endColumn"])
        assert cursor <= begin <= end
        out.append(text[cursor:begin] + replacement.get("insertedContent", {}).get("text", ""))
        cursor = end
    return "".join(out) + text[cursor:]


PIPELINE = ("def inputs(files):\n"
            "    queue = tf.train.string_input_producer(files)\n"
            "    reader = tf.TFRecordReader()\n"
            "    _, record = reader.read(queue)\n"
            "    return tf.train.batch([record], batch_size=8)\n")


@pytest.mark.parametrize("name,data", [
    ("plain", ("import tensorflow as tf\n\n\n" + PIPELINE).encode()),
    ("crlf", ("import tensorflow as tf\n\n\n" + PIPELINE).replace("\n", "\r\n").encode()),
    ("no_final_newline", ("import tensorflow as tf\n\n\n" + PIPELINE).rstrip("\n").encode()),
    ("bom_and_accents", ("\ufeff# é à ü — 𝛼\nimport tensorflow as tf\n\n\n" + PIPELINE + "x = 'ü'\n").encode()),
    ("latin1", b"# -*- coding: latin-1 -*-\n# caf\xe9\nimport tensorflow as tf\n\n\n" + PIPELINE.encode("latin-1")),
])
def test_sarif_fixes_reproduce_the_migration(name, data, tmp_path):
    path = tmp_path / (name + ".py")
    path.write_bytes(data)
    [result] = api.migrate([str(path)])
    assert result.changed, name
    log = json.loads(render.sarif([result]))
    _validate(log)
    fixed = [r for r in log["runs"][0]["results"] if r["properties"]["migratable"]]
    assert len(fixed) == 3
    [change] = fixed[0]["fixes"][0]["artifactChanges"]
    assert _apply(render._text(result.old_source), change["replacements"]) == render._text(result.new_source)


def _parse_text(output):
    found = set()
    for line in output.splitlines():
        match = re.match(r"(.+?):(\d+):\d+: (QM\d+)", line)
        if match:
            found.add((os.path.abspath(match.group(1)), int(match.group(2)), match.group(3)))
    return found


def _parse_json(output):
    return {(os.path.abspath(f["path"]), d["line"], d["code"])
            for f in json.loads(output)["files"] for d in f["diagnostics"]}


def _parse_github(output):
    found = set()
    for line in output.splitlines():
        match = re.match(r"::(warning|notice) file=([^,]+),line=(\d+),col=\d+,title=(QM\d+)::", line)
        if match:
            found.add((os.path.abspath(match.group(2).replace("%3A", ":").replace("%2C", ",").replace("%25", "%")),
                       int(match.group(3)), match.group(4)))
    return found


def _parse_sarif(output):
    log = json.loads(output)
    _validate(log)
    return {(os.path.abspath(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]),
             r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"])
            for r in log["runs"][0]["results"]}


def _parse_markdown(output):
    found = set()
    for line in output.splitlines():
        match = re.match(r"\| `([^`]+)` \| (\d+) \| (QM\d+) \|", line)
        if match:
            found.add((os.path.abspath(match.group(1)), int(match.group(2)), match.group(3)))
    return found


def test_every_format_reports_the_same_calls(tmp_path, monkeypatch):
    """One --check run, five formats: each names the same (file, line, code) set, which is every
    finding of the run: calls it would rewrite, calls it leaves (with why), and notes."""
    for source in (MIGRATABLE, DIAGNOSED, WITH_NOTES):
        shutil.copy(source, tmp_path / os.path.basename(source))
    broken = _with_broken_file(tmp_path)
    monkeypatch.chdir(tmp_path)  # paths shown relative to here, as in a CI checkout
    results = api.migrate([str(tmp_path)])
    expected = {(d.path, d.line, d.code) for r in results for d in r.diagnostics}
    kinds = [d for r in results for d in r.diagnostics]
    assert any(d.fixed for d in kinds) and any(d.note for d in kinds) and any(
        not d.fixed and not d.note for d in kinds), "the run must hold every kind of finding"
    outputs = {
        "text": _parse_text(render.findings(results, show_fixed=True)),
        "json": _parse_json(render.as_json(results)),
        "github": _parse_github(render.github(results)),
        "sarif": _parse_sarif(render.sarif(results)),
        "markdown": _parse_markdown(render.markdown(results, wrote=False)),
    }
    for fmt, found in outputs.items():
        assert found == expected, fmt
    # The failed file is in every format too.
    assert "broken.py: error: does not parse" in render.findings(results, show_fixed=True)
    assert any(f["status"] == "failed" for f in json.loads(render.as_json(results))["files"])
    assert "::error file=broken.py,title=qmigrate::does not parse" in render.github(results)
    assert "| `broken.py` | error: does not parse" in render.markdown(results, wrote=False)
    assert "broken.py" in json.dumps(json.loads(render.sarif(results))["runs"][0]["invocations"])


def test_a_check_that_fails_on_migratable_code_says_where_in_every_format():
    """The issue's case: only migratable code, exit 1; each format must say where and what to run."""
    for fmt in ("text", "github", "sarif", "markdown", "json"):
        code, output = _report(fmt, MIGRATABLE)
        assert code == 1, fmt
        assert output.count("QM302") >= 1, fmt
    code, output = _report("github", MIGRATABLE)
    shown = os.path.relpath(MIGRATABLE).replace(os.sep, "/")
    assert output.splitlines() == [
        "::warning file=%s,line=10,col=18,title=QM101::string_input_producer queue feeds a reader; "
        "migratable automatically: run `qmigrate --write`" % shown,
        "::warning file=%s,line=11,col=14,title=QM203::TextLineReader reads from a queue; "
        "migratable automatically: run `qmigrate --write`" % shown,
        "::warning file=%s,line=16,col=34,title=QM302::tf.train.shuffle_batch shuffles and batches with a "
        "queue; migratable automatically: run `qmigrate --write`" % shown]


def test_the_write_command_named_carries_the_options_that_change_the_rewrite():
    result = CliRunner().invoke(main, [MIGRATABLE, "--output-format", "github", "--unsafe", "--target-tf", "1.15"])
    assert "run `qmigrate --write --unsafe --target-tf 1.15`" in result.output


def test_after_a_write_only_what_is_left_is_reported(tmp_path):
    shutil.copy(MIGRATABLE, tmp_path / "a.py")
    shutil.copy(DIAGNOSED, tmp_path / "b.py")
    result = CliRunner().invoke(main, [str(tmp_path), "--write", "--output-format", "github"])
    assert result.exit_code == 1
    assert "a.py" not in result.output and result.output.count("::warning file=") == 9


def test_github_annotations(tmp_path):
    code, output = _report("github", DIAGNOSED, _with_broken_file(tmp_path))
    assert code == 2
    lines = output.splitlines()
    shown = os.path.relpath(DIAGNOSED).replace(os.sep, "/")
    assert lines[0].startswith("::warning file=%s,line=9,col=13,title=QM101::" % shown)
    assert "not rewritten: its `shapes=` is computed" in lines[0]
    assert any(line.startswith("::error file=") and "broken.py" in line for line in lines)
    assert all("\n" not in line for line in lines)


def test_markdown_summary_counts():
    code, output = _report("markdown", DIAGNOSED)
    assert code == 1
    assert "| 1 | 0 | 9 | 0 |" in output
    assert output.count("| QM301 | **left** |") == 3
    assert "<details>" not in output  # nothing to rewrite: no diff


def test_markdown_shows_per_file_counts_and_the_diff_collapsed(tmp_path):
    shutil.copy(MIGRATABLE, tmp_path / "a.py")
    shutil.copy(DIAGNOSED, tmp_path / "b.py")
    results = api.migrate([str(tmp_path)])
    relative = {os.path.basename(r.path): render._relative(r.path) for r in results}
    output = render.markdown(results, wrote=False)
    assert "| `%s` | 3 | 0 | 0 |" % relative["a.py"] in output
    assert "| `%s` | 0 | 9 | 0 |" % relative["b.py"] in output
    assert "<details><summary>Diff: 1 file would be rewritten (+15 −9 lines)</summary>" in output
    assert "+    dataset = dataset.map(parse_record)" in output and output.rstrip().endswith("</details>")
    assert "truncated" not in output
    cut = render.markdown(results, wrote=False, diff_limit=400)
    assert "+    dataset = dataset.map(parse_record)" not in cut
    match = re.search(r"Diff truncated: (\d+) of (\d+) lines shown; run `qmigrate --diff`", cut)
    assert match and 0 < int(match.group(1)) < int(match.group(2))
    assert cut.rstrip().endswith("</details>")


def test_markdown_fences_the_diff_against_backticks_in_the_code(tmp_path):
    path = tmp_path / "ticks.py"
    path.write_text("import tensorflow as tf\nFENCE = '```'\n" + PIPELINE)
    output = render.markdown(api.migrate([str(path)]), wrote=False)
    assert "````diff" in output


def test_json_report_lists_every_finding():
    code, output = _report("json", DIAGNOSED)
    report = json.loads(output)
    [entry] = report["files"]
    assert entry["status"] == "diagnosed" and not entry["changed"]
    assert [d["code"] for d in entry["diagnostics"]].count("QM301") == 3
