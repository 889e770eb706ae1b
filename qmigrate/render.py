"""Turn results into text: findings, unified diffs, JSON, a summary line. The only module that formats output."""
import difflib
import inspect
import json
import os
from typing import List

import click

from qmigrate.diagnostics import FileResult, Status


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace") if data is not None else ""


def diff(result: FileResult, color: bool) -> str:
    """A unified diff of the file's migration ('' when nothing changes)."""
    if not result.changed:
        return ""
    old = _decode(result.old_source).splitlines(keepends=True)
    new = _decode(result.new_source).splitlines(keepends=True)
    lines = []
    for line in difflib.unified_diff(old, new, result.path + " (original)", result.path + " (migrated)"):
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        if color:
            if line.startswith("+") and not line.startswith("+++"):
                line = click.style(line, fg="green")
            elif line.startswith("-") and not line.startswith("---"):
                line = click.style(line, fg="red")
            elif line.startswith("@@"):
                line = click.style(line, fg="cyan")
        lines.append(line)
    return "".join(lines)


def findings(results: List[FileResult], show_fixed: bool) -> str:
    """`path:line:col: CODE message` per finding, and `path: error: reason` per failed file."""
    out = []
    for result in results:
        if result.status is Status.FAILED:
            out.append("%s: error: %s" % (result.path, result.error))
            continue
        for d in result.diagnostics:
            if d.fixed and not show_fixed:
                continue
            mark = " [fixed]" if d.fixed else " [note]" if d.note else ""
            out.append("%s:%d:%d: %s%s %s" % (d.path, d.line, d.column, d.code, mark, d.message))
    return "\n".join(out)


def summary(results: List[FileResult], wrote: bool) -> str:
    """One line: files checked and skipped unparsed, migrated, diagnosed, failed, findings left."""
    count = {status: 0 for status in Status}
    for result in results:
        count[result.status] += 1
    changed = sum(1 for r in results if r.changed)
    left = sum(len(r.remaining) for r in results)
    return ("%d files checked (%d skipped by the prefilter): %d %s, %d with findings left (%d findings), "
            "%d failed." % (len(results), count[Status.SKIPPED], changed,
                            "rewritten" if wrote else "would be rewritten",
                            sum(1 for r in results if r.remaining), left, count[Status.FAILED]))


def as_json(results: List[FileResult]) -> str:
    files = []
    for result in results:
        files.append({
            "path": result.path,
            "status": result.status.value,
            "changed": result.changed,
            "error": result.error,
            "diagnostics": [
                {"line": d.line, "column": d.column, "code": d.code, "message": d.message,
                 "fixed": d.fixed, "note": d.note, "safety": d.safety.name.lower()}
                for d in result.diagnostics
            ],
        })
    return json.dumps({"files": files}, indent=2)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(results: List[FileResult]) -> str:
    """GitHub Actions workflow commands: one annotation per finding left, one error per failed file."""
    out = []
    for result in results:
        path = _escape_property(_relative(result.path))
        if result.status is Status.FAILED:
            out.append("::error file=%s,title=qmigrate::%s" % (path, _escape_data(result.error)))
            continue
        for d in result.remaining + result.notes:
            out.append("::%s file=%s,line=%d,col=%d,title=%s::%s" % (
                "notice" if d.note else "warning", path, d.line, d.column, d.code, _escape_data(d.message)))
    return "\n".join(out)


def markdown(results: List[FileResult], wrote: bool) -> str:
    """A summary for a pull-request comment: counts, then each file's findings left."""
    left = [r for r in results if r.remaining]
    failed = [r for r in results if r.status is Status.FAILED]
    changed = sum(1 for r in results if r.changed)
    lines = ["## qmigrate", "",
             "| files checked | %s | findings left | failed |" % ("rewritten" if wrote else "would be rewritten"),
             "| --- | --- | --- | --- |",
             "| %d | %d | %d | %d |" % (len(results), changed, sum(len(r.remaining) for r in results), len(failed))]
    if left or failed:
        lines += ["", "| file | line | code | finding |", "| --- | --- | --- | --- |"]
        for result in failed:
            lines.append("| `%s` | | error | %s |" % (_relative(result.path), _cell(result.error)))
        for result in left:
            for d in result.remaining:
                lines.append("| `%s` | %d | %s | %s |" % (_relative(d.path), d.line, d.code, _cell(d.message)))
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _relative(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def sarif(results: List[FileResult]) -> str:
    """A SARIF 2.1.0 log (what GitHub code scanning uploads) of the findings left and failed files."""
    from qmigrate import __version__
    from qmigrate.rules import ALL_RULES

    levels = {"manual": "warning", "unsafe": "warning", "safe": "warning"}
    rules = [{
        "id": rule.code,
        "name": rule.__name__,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": inspect.getdoc(rule)},
        "defaultConfiguration": {"level": "note" if rule.note else levels[rule.safety.name.lower()]},
        "properties": {"fixSafety": rule.safety.name.lower()},
    } for rule in sorted(ALL_RULES, key=lambda r: r.code)]
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    findings, notifications = [], []
    for result in results:
        location = {"physicalLocation": {"artifactLocation": {"uri": _relative(result.path)}}}
        if result.status is Status.FAILED:
            notifications.append({"level": "error", "message": {"text": result.error}, "locations": [location]})
            continue
        for d in result.remaining + result.notes:
            findings.append({
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": "note" if d.note else levels[d.safety.name.lower()],
                "message": {"text": d.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": _relative(d.path)},
                    "region": {"startLine": d.line, "startColumn": d.column}}}],
            })
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "qmigrate", "version": __version__, "rules": rules}},
            "results": findings,
            "invocations": [{"executionSuccessful": not notifications,
                             "toolExecutionNotifications": notifications}],
        }],
    }
    return json.dumps(log, indent=2)
