"""Whether a Jupyter notebook's code cells call a queue API (QM002 reports those notebooks).

The prefilter reads a notebook's bytes, JSON and all: a cell that says `dataset.batch(32)` passes
it. The cells' code is joined (IPython's `%magic` and `!shell` lines blanked) and its calls
resolved through its imports, as a module's are; a notebook whose JSON or code cannot be read is
reported, as before (its code cannot be shown to be free of queues).
"""
import json
from typing import List, Optional

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.rules import rule_for


def code_of(source: bytes) -> Optional[str]:
    """The notebook's code cells joined, magics blanked; None if it is not a readable notebook."""
    try:
        notebook = json.loads(source.decode("utf-8"))
        cells = notebook.get("cells") if isinstance(notebook, dict) else None
        if cells is None:  # nbformat 3: worksheets of cells, code under "input"
            cells = [cell for sheet in notebook.get("worksheets", []) for cell in sheet.get("cells", [])]
        lines: List[str] = []
        for cell in cells:
            if cell.get("cell_type") != "code":
                continue
            text = cell.get("source", cell.get("input", ""))
            text = "".join(text) if isinstance(text, list) else str(text)
            lines += ["" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines()]
            lines.append("")
        return "\n".join(lines) + "\n"
    except (ValueError, AttributeError, TypeError):
        return None


def calls_queue_api(source: bytes) -> bool:
    """Whether the notebook's code calls a queue API; True when it cannot be read or parsed."""
    code = code_of(source)
    if code is None:
        return True
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return True
    imports = ImportMap(module)
    return any(rule_for(imports.resolve(call.func)) is not None for call in cstutil.calls_of(module))
