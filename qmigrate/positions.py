"""Line and column of the queue calls found in a module, cheaply.

libcst's PositionProvider regenerates the whole module to compute positions, which costs more
than the parse itself on big files. The stdlib parser gives the same calls' positions in a
fraction of that: both trees list calls in source order, so they are paired one to one (and
the caller falls back to PositionProvider if the two lists ever disagree).
"""
import ast
import warnings
from typing import Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import astindex
from qmigrate.names import ImportMap, ast_dotted, canonical


def stdlib_tree(source: bytes) -> Optional[ast.AST]:
    """The stdlib parser's tree, or None where it disagrees with libcst about parsing the file."""
    try:
        # The user's code is read, not run: its invalid escapes ("\e") are not ours to warn about.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def call_positions(tree: Optional[ast.AST], source: bytes, encoding: str, calls: List[cst.Call],
                   imports: ImportMap, wanted) -> Optional[Dict[int, Tuple[int, int, int]]]:
    """{id(call): (line, 1-based column, last line)} for `calls`, or None when they cannot be paired.

    `wanted(canonical_name)` is the predicate that selected `calls` from the libcst tree.
    """
    if tree is None:
        return None
    found = []
    for node in astindex.nodes(tree, ast.Call):
        name = ast_dotted(node.func)
        resolved = imports.resolve_dotted(name) if name else None
        if resolved and wanted(canonical(resolved)):
            found.append((node.lineno, node.col_offset, node.end_lineno))
    if len(found) != len(calls):
        return None
    found.sort()
    lines = source.splitlines()
    if lines and lines[0].startswith(b"\xef\xbb\xbf"):
        lines[0] = lines[0][3:]
    positions = {}
    for call, (line, byte_column, end_line) in zip(calls, found):
        # ast counts columns in UTF-8 bytes of the decoded line; libcst in characters.
        text = lines[line - 1].decode(encoding, errors="replace")
        column = len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))
        positions[id(call)] = (line, column + 1, end_line)
    return positions
