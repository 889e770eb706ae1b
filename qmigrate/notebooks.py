"""Jupyter notebooks: migrated through their code cells, joined into one module ("virtual code").

Contract:
- `calls_queue_api(source)`: whether a notebook's code cells call a queue API (True when they
  cannot be read, or do not parse and their text may hold queue code). The prefilter reads a
  notebook's bytes, JSON and all: a cell that says `dataset.batch(32)` passes it; this looks at
  the code.
- `virtual(source)`: (Virtual, "") for a notebook qmigrate can migrate, else (None, why not). The
  virtual code is the code cells in order, each after a line `# qmigrate: cell N`, with IPython's
  `%magic` and `!shell` lines (and whole `%%` cell-magic cells) replaced by placeholder comments
  `# qmigrate: magic M`: it runs as the notebook does when its cells run once, top to bottom, so
  the engine migrates it as it does a module. A notebook is migrated only when its JSON is laid out
  as a writer qmigrate can reproduce byte for byte (Jupyter's own: indent 1, sorted keys), so that
  writing it back changes nothing but the cells whose code changed.
- `Virtual.rebuild(new_code)`: (the notebook's new bytes, "") or (None, why not): every cell
  boundary and placeholder must come back once, in order, and every changed cell must parse on its
  own (a migration that moves code across a cell boundary would leave a cell that cannot run).
  Outputs, execution counts and metadata stay as they were.
- `Virtual.json_line(line)`: the line of the notebook's file that holds line `line` of the virtual
  code (findings point into the .ipynb file, where a diff of it shows them).
"""
import ast
import difflib
import functools
import itertools
import json
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.engine import may_contain_queue_code
from qmigrate.names import ImportMap
from qmigrate.rules import rule_for

_CELL = re.compile(r"# qmigrate: cell (\d+)\n?")
_MAGIC = re.compile(r"[ \t]*(?:pass  )?# qmigrate: magic (\d+)\n?")
# IPython's own lines: `%magic`, `!shell`, and their values assigned (`hostname = !hostname`).
_IPYTHON_LINE = re.compile(r"\s*(?:[%!]|[\w.\[\], ]+=\s*[%!])")


def code_of(source: bytes) -> Optional[str]:
    """The notebook's code cells joined, magics (and `%%` cells) as placeholders (a `pass` inside
    a block); None if it is not a readable notebook."""
    notebook = _load(source)
    if notebook is None:
        return None
    lines: List[str] = []
    for cell in _cells(notebook):
        if cell.get("cell_type") != "code":
            continue
        lines += _cell_code(_text(cell)).splitlines()
        lines.append("")
    return "\n".join(lines) + "\n"


def calls_queue_api(source: bytes) -> bool:
    """Whether the notebook's code calls a queue API; True when it cannot be read, or when its
    code does not parse and its text may hold queue code (the test a Python file's text passes)."""
    code = code_of(source)
    if code is None:
        return True
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return may_contain_queue_code(code.encode("utf-8"))
    imports = ImportMap(module)
    # A rule that is only a note (a MonitoredSession, which starts queue runners if there are
    # any) finds no queue code to migrate.
    rules = (rule_for(imports.resolve(call.func)) for call in cstutil.calls_of(module))
    return any(rule is not None and not rule.note for rule in rules)


@dataclass(frozen=True)
class _Layout:
    """How json.dumps wrote the notebook (what Jupyter's nbformat writes: indent 1, sorted keys)."""

    indent: Optional[int]
    ensure_ascii: bool
    sort_keys: bool
    end: str

    def dump(self, notebook) -> bytes:
        separators = (",", ": ") if self.indent is not None else (", ", ": ")
        return (json.dumps(notebook, indent=self.indent, ensure_ascii=self.ensure_ascii, sort_keys=self.sort_keys,
                           separators=separators) + self.end).encode("utf-8")


_LAYOUTS = [_Layout(indent, ascii_only, sort_keys, end) for indent, ascii_only, sort_keys, end in itertools.product(
    (1, 2, 4, None), (False, True), (True, False), ("\n", ""))]


class Virtual:
    """A notebook as one module of code, and the way back."""

    def __init__(self, notebook: dict, layout: _Layout, source: bytes):
        self.layout, self.source = layout, source
        self.cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
        self.magics: List[str] = []
        self.chunks: List[str] = []  # each code cell's part of the virtual code, its boundary line first
        self.where: List[Optional[Tuple[int, int]]] = [None]  # virtual line -> (code cell, line in it)
        for number, cell in enumerate(self.cells):
            lines = _text(cell).splitlines()
            whole = bool(lines) and lines[0].lstrip().startswith("%%")  # a cell magic: not Python
            chunk = ["# qmigrate: cell %d\n" % number]
            self.where.append(None)
            index = 0
            while index < len(lines):
                line = lines[index]
                if whole or _is_magic(line):
                    # A magic goes on while its lines end with a backslash (`!gcloud ... \`).
                    end = len(lines) if whole else index + 1
                    while not whole and end < len(lines) and lines[end - 1].rstrip().endswith("\\"):
                        end += 1
                    indent = "" if whole else line[:len(line) - len(line.lstrip())]
                    # Inside a block it stands for a statement (`else:` over `!pip install x` alone).
                    chunk.append("%s%s# qmigrate: magic %d\n" % (indent, "pass  " if indent else "", len(self.magics)))
                    self.magics.append("\n".join(lines[index:end]))
                    self.where.append((number, index))
                    index = end
                    continue
                chunk.append(line + "\n")
                self.where.append((number, index))
                index += 1
            self.chunks.append("".join(chunk))
        self.code = "".join(self.chunks)

    def rebuild(self, new_code: str) -> Tuple[Optional[bytes], str]:
        """The notebook with the cells of `new_code`, or (None, why it cannot be written)."""
        lines, problem = self._bounded(new_code.splitlines(keepends=True))
        if lines is None:
            return None, problem
        chunks: List[List[str]] = [[]]
        for line in lines:
            boundary = _CELL.fullmatch(line)
            if boundary:
                if int(boundary.group(1)) != len(chunks) - 1:
                    return None, "the migration moves the start of code cell %d" % len(chunks)
                chunks.append([])
            chunks[-1].append(line)
        head = chunks.pop(0)
        if len(chunks) != len(self.cells):
            return None, "the migration moves the start of code cell %d" % (len(chunks) + 1)
        if chunks and any(line.strip() for line in head):  # code put above every cell: the first cell's
            chunks[0] = chunks[0][:1] + head + chunks[0][1:]
        notebook = json.loads(self.source.decode("utf-8"))
        cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
        seen = []
        for number, (chunk, cell) in enumerate(zip(chunks, cells)):
            text = "".join(chunk)
            if text == self.chunks[number]:
                seen += [int(m.group(1)) for m in map(_MAGIC.fullmatch, chunk) if m]
                continue
            lines = []
            for line in chunk[1:]:
                placeholder = _MAGIC.fullmatch(line)
                if placeholder:
                    seen.append(int(placeholder.group(1)))
                    magic = self.magics[seen[-1]] if seen[-1] < len(self.magics) else ""
                    line = magic + ("\n" if line.endswith("\n") else "")
                lines.append(line)
            new_text = "".join(lines).rstrip("\n")
            if _text(cell).endswith("\n"):
                new_text += "\n"
            problem, _ = _unparsable(_cell_code(new_text))
            if problem:
                return None, "the migration would leave code cell %d unable to run on its own (%s): it moves " \
                             "code across cells" % (number + 1, problem)
            cell["source"] = new_text.splitlines(keepends=True) if isinstance(cell.get("source"), list) else new_text
        if seen != list(range(len(self.magics))):
            return None, "the migration moves an IPython magic line"
        return self.layout.dump(notebook), ""

    def _bounded(self, new: List[str]) -> Tuple[Optional[List[str]], str]:
        """The new lines with every cell boundary line in place. A boundary goes with the statement
        below it when the migration removes that statement with its comments (a cell of
        `tf.train.start_queue_runners(sess)` only): where the old lines around it were deleted and
        nothing took their place, it goes back there (that cell's code is all gone); where new code
        took their place, which cell that code belongs to is not known, and the notebook stays."""
        present = {int(found.group(1)) for found in map(_CELL.fullmatch, new) if found}
        if len(present) == len(self.cells):
            return new, ""
        old = self.code.splitlines(keepends=True)
        starts = {}  # new line index -> the boundaries that go back above it
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, old_start, old_end, new_start, _ in matcher.get_opcodes():
            for index in range(old_start, old_end):
                found = _CELL.fullmatch(old[index])
                if not found or int(found.group(1)) in present:
                    continue
                if tag != "delete":
                    return None, "the migration rewrites the code around the start of code cell %d" % (
                        int(found.group(1)) + 1)
                starts.setdefault(new_start, []).append(old[index])
        out: List[str] = []
        for index, line in enumerate(new + [None]):
            out += starts.get(index, [])
            if line is not None:
                out.append(line)
        return out, ""

    @functools.cached_property
    def _json_lines(self) -> Dict[Tuple[int, int], int]:
        """(code cell, line in it) -> the line of the notebook's file that holds it: each element of a
        cell's source list sits on a line of its own (a source kept as one string, on one line)."""
        marked = json.loads(self.source.decode("utf-8"))
        cells = [cell for cell in marked["cells"] if cell.get("cell_type") == "code"]
        spans = {}  # (cell, element) -> its first line in the cell, and how many it holds
        for number, cell in enumerate(cells):
            source = cell.get("source")
            elements = source if isinstance(source, list) else [source if isinstance(source, str) else ""]
            first = 0
            for index, element in enumerate(elements):
                spans[(number, index)] = (first, max(len(str(element).splitlines()), 1))
                first += str(element).count("\n")
            markers = ["\x00qm %d %d" % (number, index) for index in range(len(elements))]
            cell["source"] = markers if isinstance(source, list) else markers[0]
        lines = {}
        for row, text in enumerate(self.layout.dump(marked).decode("utf-8").splitlines(), 1):
            for found in re.finditer(r"\\u0000qm (\d+) (\d+)", text):
                first, count = spans[(int(found.group(1)), int(found.group(2)))]
                for offset in range(count):
                    lines.setdefault((int(found.group(1)), first + offset), row)
        return lines

    def json_line(self, line: int) -> int:
        where = self.where[line] if 0 < line < len(self.where) else None
        if where is None:
            return 1
        number, index = where
        return self._json_lines.get((number, index), self._json_lines.get((number, 0), 1))


def virtual(source: bytes) -> Tuple[Optional[Virtual], str]:
    """(the notebook's virtual code, "") or (None, why qmigrate does not migrate it)."""
    notebook = _load(source)
    if notebook is None:
        return None, "its JSON cannot be read"
    if not isinstance(notebook.get("cells"), list):
        return None, "it is in the old nbformat 3 layout (worksheets)"
    layout = next((layout for layout in _LAYOUTS if layout.dump(notebook) == source), None)
    if layout is None:
        return None, "its JSON is not laid out as Jupyter writes it, so writing it back would change every line"
    if any(_CELL.fullmatch(line) or _MAGIC.fullmatch(line) for cell in _cells(notebook)
           for line in _text(cell).splitlines()):
        return None, "a line of its code reads like a marker qmigrate puts in the code it migrates"
    found = Virtual(notebook, layout, source)
    problem, line = _unparsable(found.code)
    if problem:
        where = found.where[line] if 0 < line < len(found.where) else None
        return None, "its code does not parse as Python 3 (%s%s)" % (
            "code cell %d, line %d: " % (where[0] + 1, where[1] + 1) if where else "", problem)
    return found, ""


def _load(source: bytes):
    try:
        notebook = json.loads(source.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return notebook if isinstance(notebook, dict) else None


def _cells(notebook: dict) -> List[dict]:
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3: worksheets of cells, code under "input"
        cells = [cell for sheet in notebook.get("worksheets", []) for cell in sheet.get("cells", [])]
    return [cell for cell in cells if isinstance(cell, dict)]


def _text(cell: dict) -> str:
    text = cell.get("source", cell.get("input", ""))
    return "".join(text) if isinstance(text, list) else str(text)


def _is_magic(line: str) -> bool:
    return bool(_IPYTHON_LINE.match(line))


def _cell_code(text: str) -> str:
    """A cell's source as the virtual code holds it (magics as placeholders), boundary line aside."""
    return Virtual({"cells": [{"cell_type": "code", "source": text}]}, None, b"").chunks[0].split("\n", 1)[1]


def _unparsable(code: str) -> Tuple[str, int]:
    """(why `code` does not parse, at which line), or ("", 0)."""
    try:
        ast.parse(code)
    except SyntaxError as error:
        return error.msg, error.lineno or 0
    return "", 0
