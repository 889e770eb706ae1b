"""Turn results into text: findings, unified diffs, JSON, a summary line. The only module that formats output."""
import difflib
import json
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
            mark = " [fixed]" if d.fixed else ""
            out.append("%s:%d:%d: %s%s %s" % (d.path, d.line, d.column, d.code, mark, d.message))
    return "\n".join(out)


def summary(results: List[FileResult], wrote: bool) -> str:
    count = {status: 0 for status in Status}
    for result in results:
        count[result.status] += 1
    changed = sum(1 for r in results if r.changed)
    left = sum(len(r.remaining) for r in results)
    verb = "rewritten" if wrote else "would be rewritten"
    return "%d files checked: %d %s, %d findings left in place, %d failed." % (
        len(results), changed, verb, left, count[Status.FAILED])


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
                 "fixed": d.fixed, "safety": d.safety.name.lower()}
                for d in result.diagnostics
            ],
        })
    return json.dumps({"files": files}, indent=2)
