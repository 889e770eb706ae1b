"""Turn results into text: findings, unified diffs, JSON, SARIF, GitHub annotations, Markdown, a summary
line. The only module that formats output.

Every format reports the same calls: those `reported` gives (with `show_fixed`, the calls this run
would rewrite as well as those it leaves), so a check that fails always says where and why.
"""
import difflib
import inspect
import io
import json
import os
import tokenize
from typing import Dict, List, Tuple

import click

from qmigrate.diagnostics import Diagnostic, Failure, FileResult, Status

WRITE_COMMAND = "qmigrate --write"
MARKDOWN_DIFF_LIMIT = 40000  # characters of diff in a comment; GitHub refuses comments over 65,536


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace") if data is not None else ""


def _text(data: bytes) -> str:
    """The file's text as Python reads it (its coding cookie or BOM honoured), for exact offsets."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return _decode(data)


def _lines(text: str) -> List[str]:
    """Lines with their terminators, split where Python's tokenizer splits (\\r\\n, \\r, \\n only)."""
    return io.StringIO(text, newline="").readlines()


def reported(result: FileResult, show_fixed: bool) -> Tuple[Diagnostic, ...]:
    """The findings a report shows for a file: all of them, or (after a write) those not fixed."""
    return tuple(d for d in result.diagnostics if show_fixed or not d.fixed)


def _verdict(d: Diagnostic, write_command: str) -> str:
    """The finding's message, saying for a call this run rewrites that `write_command` would do it."""
    if d.fixed:
        return "%s; migratable automatically: run `%s`" % (d.message, write_command)
    return d.message


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
        for d in reported(result, show_fixed):
            mark = " [fixed]" if d.fixed else " [note]" if d.note else ""
            out.append("%s:%d:%d: %s%s %s" % (d.path, d.line, d.column, d.code, mark, d.message))
    return "\n".join(out)


def summary(results: List[FileResult], wrote: bool) -> str:
    """One line: files checked and skipped unparsed, migrated, diagnosed, failed (undecodable ones
    counted apart), findings left."""
    count = {status: 0 for status in Status}
    for result in results:
        count[result.status] += 1
    changed = sum(1 for r in results if r.changed)
    left = sum(len(r.remaining) for r in results)
    undecodable = sum(1 for r in results if r.failure is Failure.UNDECODABLE)
    return ("%d files checked (%d skipped by the prefilter): %d %s, %d with findings left (%d findings), "
            "%d failed%s." % (len(results), count[Status.SKIPPED], changed,
                              "rewritten" if wrote else "would be rewritten",
                              sum(1 for r in results if r.remaining), left, count[Status.FAILED],
                              ", of which %d skipped as undecodable or binary" % undecodable if undecodable else ""))


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


def github(results: List[FileResult], show_fixed: bool = True, write_command: str = WRITE_COMMAND) -> str:
    """GitHub Actions workflow commands: a warning per queue call (migratable, or what blocks it), a
    notice per note, an error per failed file."""
    out = []
    for result in results:
        path = _escape_property(_relative(result.path))
        if result.status is Status.FAILED:
            out.append("::error file=%s,title=qmigrate::%s" % (path, _escape_data(result.error)))
            continue
        for d in reported(result, show_fixed):
            out.append("::%s file=%s,line=%d,col=%d,title=%s::%s" % (
                "notice" if d.note else "warning", path, d.line, d.column, d.code,
                _escape_data(_verdict(d, write_command))))
    return "\n".join(out)


def markdown(results: List[FileResult], wrote: bool, show_fixed: bool = True, write_command: str = WRITE_COMMAND,
             diff_limit: int = MARKDOWN_DIFF_LIMIT) -> str:
    """A pull-request comment: totals; per file, the calls migratable and left; every call with its
    status and reason; the diff, collapsed and cut after `diff_limit` characters (saying so)."""
    failed = [r for r in results if r.status is Status.FAILED]
    changed = [r for r in results if r.changed]
    done = "rewritten" if wrote else "would be rewritten"
    lines = ["## qmigrate", "",
             "| files checked | %s | findings left | failed |" % done,
             "| --- | --- | --- | --- |",
             "| %d | %d | %d | %d |" % (len(results), len(changed), sum(len(r.remaining) for r in results), len(failed))]
    shown = [(r, reported(r, show_fixed)) for r in results]
    if failed or any(found for _, found in shown):
        lines += ["", "| file | %s | left | notes |" % ("rewritten" if wrote else "migratable"),
                  "| --- | --- | --- | --- |"]
        for result, found in shown:
            if result.status is Status.FAILED:
                lines.append("| `%s` | error: %s | | |" % (_relative(result.path), _cell(result.error)))
            elif found:
                lines.append("| `%s` | %d | %d | %d |" % (
                    _relative(result.path), sum(1 for d in found if d.fixed), sum(1 for d in found if not d.fixed
                                                                                  and not d.note),
                    sum(1 for d in found if d.note)))
        lines += ["", "| file | line | code | status | finding |", "| --- | --- | --- | --- | --- |"]
        for result, found in shown:
            for d in found:
                status = ("rewritten" if wrote else "migratable: `%s`" % write_command) if d.fixed else (
                    "note" if d.note else "**left**")
                lines.append("| `%s` | %d | %s | %s | %s |" % (_relative(d.path), d.line, d.code, status,
                                                               _cell(d.message)))
    if changed:
        lines += [""] + _collapsed_diff(changed, done, diff_limit)
    return "\n".join(lines)


def _collapsed_diff(changed: List[FileResult], done: str, limit: int) -> List[str]:
    text = "".join(diff(result, color=False) for result in changed)
    body = text.splitlines()
    kept, size = [], 0
    for line in body:
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    fence = "`" * max(3, _longest_run(text, "`") + 1)  # a fence the diff itself cannot close
    added = sum(1 for line in body if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in body if line.startswith("-") and not line.startswith("---"))
    out = ["<details><summary>Diff: %d %s %s (+%d −%d lines)</summary>" % (
        len(changed), "file" if len(changed) == 1 else "files", done, added, removed), "",
        fence + "diff"] + kept + [fence]
    if len(kept) < len(body):
        out += ["", "Diff truncated: %d of %d lines shown; run `qmigrate --diff` for all of it." % (
            len(kept), len(body))]
    return out + ["", "</details>"]


def _longest_run(text: str, char: str) -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return longest


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _relative(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def _position(lines: List[str], index: int) -> Dict[str, int]:
    """SARIF line and column (1-based, code points) where old line `index` (0-based) starts; past
    the last line, the end of the file."""
    if index < len(lines):
        return {"line": index + 1, "column": 1}
    if not lines:
        return {"line": 1, "column": 1}
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return {"line": len(lines) + 1, "column": 1}
    return {"line": len(lines), "column": len(last) + 1}


def replacements(old_source: bytes, new_source: bytes) -> List[dict]:
    """SARIF replacements that turn the old text into the new one: whole-line hunks of a diff, each a
    deleted region (empty for a pure insertion) and the text inserted there."""
    old, new = _lines(_text(old_source)), _lines(_text(new_source))
    out = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = _position(old, i1), _position(old, i2)
        replacement = {"deletedRegion": {"startLine": start["line"], "startColumn": start["column"],
                                         "endLine": end["line"], "endColumn": end["column"]}}
        if j2 > j1:
            replacement["insertedContent"] = {"text": "".join(new[j1:j2])}
        out.append(replacement)
    return out


def sarif(results: List[FileResult], show_fixed: bool = True, write_command: str = WRITE_COMMAND) -> str:
    """A SARIF 2.1.0 log (what GitHub code scanning uploads): a result per reported call, with the
    file's migration as its fix when this run rewrites it; failed files as notifications.

    A fix holds every change of the file: the edits of a pipeline stand or fall together, and
    qmigrate does not split a file's rewrite by call, so each migratable call of a file offers
    the same, whole fix (what `qmigrate --write` does to the file).
    """
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
        uri = _relative(result.path)
        if result.status is Status.FAILED:
            notifications.append({"level": "error", "message": {"text": result.error},
                                  "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}]})
            continue
        fix = None
        for d in reported(result, show_fixed):
            finding = {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": "note" if d.note else levels[d.safety.name.lower()],
                "message": {"text": _verdict(d, write_command)},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": {"startLine": d.line, "startColumn": d.column}}}],
                "properties": {"migratable": d.fixed, "fixSafety": d.safety.name.lower()},
            }
            if d.fixed and result.changed:
                fix = fix or {
                    "description": {"text": "`%s`: this file's queue pipelines rewritten into tf.data (all of "
                                            "the file's changes, applied together)" % write_command},
                    "artifactChanges": [{"artifactLocation": {"uri": uri},
                                         "replacements": replacements(result.old_source, result.new_source)}],
                }
                finding["fixes"] = [fix]
            findings.append(finding)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "qmigrate", "version": __version__, "rules": rules}},
            "results": findings,
            "columnKind": "unicodeCodePoints",  # as the findings' columns (characters, not UTF-16 units)
            "invocations": [{"executionSuccessful": not notifications,
                             "toolExecutionNotifications": notifications}],
        }],
    }
    return json.dumps(log, indent=2)
