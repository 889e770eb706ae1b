"""Line and column of the queue calls found in a module, cheaply.

libcst's PositionProvider regenerates the whole module to compute positions, which costs more
than the parse itself on big files. The stdlib parser gives the same calls' positions in a
fraction of that: both trees list calls in source order, so they are paired one to one (and
the caller falls back to PositionProvider if the two lists ever disagree).
"""
import ast
import warnings
from typing import Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from qmigrate import astindex, cstutil
from qmigrate.names import ImportMap, ast_dotted, canonical


def stdlib_tree(source: Union[bytes, str]) -> Optional[ast.AST]:
    """The stdlib parser's tree, or None where it disagrees with libcst about parsing the file
    (`source`: the file's bytes, or text already decoded)."""
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


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
             ast.AsyncWith, ast.Try) + tuple(getattr(ast, name) for name in ("TryStar", "Match") if hasattr(ast, name))


def statement_lines(body: Sequence[cst.BaseStatement], stmts: List[ast.stmt]) -> Optional[List[tuple]]:
    """(line, stdlib statement) where each libcst statement of `body` starts (as libcst's
    PositionProvider says: a decorated definition at its `def`), from the stdlib statements of the
    same block; None if they do not pair.

    libcst puts `a = (1,\n 2); b = 3` in one statement line where the stdlib has two statements,
    the second starting on the line the first ends on: those are one."""
    starts, previous = [], None
    for stmt in stmts:
        simple = not isinstance(stmt, _COMPOUND)
        if simple and previous is not None and stmt.lineno == previous.end_lineno:
            previous = stmt
            continue
        starts.append((stmt.lineno, stmt))
        previous = stmt if simple else None
    return starts if len(starts) == len(body) else None


def _suites(stmt: cst.BaseStatement, tree: ast.stmt) -> List[tuple]:
    """(libcst block, stdlib statement list) for each indented block of a compound statement."""
    pairs = []

    def add(block, stmts):
        if isinstance(block, cst.IndentedBlock):
            pairs.append((block, stmts))

    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.With)) and hasattr(tree, "body"):
        add(stmt.body, tree.body)
    elif isinstance(stmt, (cst.For, cst.While)) and isinstance(tree, (ast.For, ast.AsyncFor, ast.While)):
        add(stmt.body, tree.body)
        if stmt.orelse is not None:
            add(stmt.orelse.body, tree.orelse)
    elif isinstance(stmt, cst.If) and isinstance(tree, ast.If):
        while True:  # an elif is the If of the orelse in both trees
            add(stmt.body, tree.body)
            if isinstance(stmt.orelse, cst.Else):
                add(stmt.orelse.body, tree.orelse)
            elif isinstance(stmt.orelse, cst.If) and len(tree.orelse) == 1 and isinstance(tree.orelse[0], ast.If):
                stmt, tree = stmt.orelse, tree.orelse[0]
                continue
            break
    elif isinstance(stmt, cst.Try) and isinstance(tree, ast.Try) and len(stmt.handlers) == len(tree.handlers):
        add(stmt.body, tree.body)
        for handler, handled in zip(stmt.handlers, tree.handlers):
            add(handler.body, handled.body)
        if stmt.orelse is not None:
            add(stmt.orelse.body, tree.orelse)
        if stmt.finalbody is not None:
            add(stmt.finalbody.body, tree.finalbody)
    return pairs


class NodePositions:
    """Where libcst nodes of `module` start and end, computed only around the nodes asked about.

    libcst's PositionProvider regenerates the whole module (more than the parse costs). Here a
    node is placed by regenerating, alone and at its indentation, the innermost statement that
    holds it, and shifting that to the statement's line in the stdlib tree of the same source
    (the two trees' blocks are paired statement by statement). Without a stdlib tree, or where
    the top-level statements do not pair, the whole module is resolved as libcst does.
    """

    def __init__(self, module: cst.Module, tree: Optional[ast.AST] = None):
        self.module = module
        top = statement_lines(module.body, tree.body) if isinstance(tree, ast.Module) else None
        # id(statement) -> (its line, the stdlib statement, its indentation) for paired statements
        self._placed: Dict[int, tuple] = {} if top is None else {
            id(stmt): (line, node, ()) for stmt, (line, node) in zip(module.body, top)}
        self._owner: Dict[int, cst.BaseStatement] = {}  # id(node) -> the innermost placed statement holding it
        self._walked = 0  # top-level statements indexed into _owner so far
        self._local: Dict[int, tuple] = {}  # id(statement) -> (its nodes' positions alone, line shift)
        self._whole = None

    def span(self, node: cst.CSTNode) -> Tuple[int, int, int]:
        """(line, 0-based column) where the node starts, and the line where it ends."""
        if self._whole is None and self._placed:
            owner = self._owner_of(node)
            if owner is not None:
                positions, shift = self._alone(owner)
                where = positions[node]
                return where.start.line + shift, where.start.column, where.end.line + shift
        if self._whole is None:
            self._whole = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        where = self._whole[node]
        return where.start.line, where.start.column, where.end.line

    def _owner_of(self, node: cst.CSTNode) -> Optional[cst.BaseStatement]:
        key = id(node)
        body = self.module.body
        while key not in self._owner and self._walked < len(body):
            self._index(body[self._walked])
            self._walked += 1
        return self._owner.get(key)

    def _index(self, stmt: cst.BaseStatement) -> None:
        """Owners for the nodes of a placed statement; its blocks' statements placed in turn."""
        _, tree, indents = self._placed[id(stmt)]
        for block, stmts in _suites(stmt, tree):
            lines = statement_lines(block.body, stmts)
            if lines is not None:
                inner = indents + (self.module.default_indent if block.indent is None else block.indent,)
                for child, (line, node) in zip(block.body, lines):
                    self._placed[id(child)] = (line, node, inner)
        # Tokens (whitespace, commas, brackets) are not asked about: not indexed, they are most of
        # the nodes (one asked about anyway is placed as the whole module is, by span's fallback).
        stack = [stmt]
        while stack:
            current = stack.pop()
            self._owner[id(current)] = stmt
            for child in cstutil.children(current, tokens=False):
                if id(child) in self._placed:
                    self._index(child)
                else:
                    stack.append(child)

    def _alone(self, stmt: cst.BaseStatement) -> tuple:
        found = self._local.get(id(stmt))
        if found is None:
            line, _, indents = self._placed[id(stmt)]
            provider = PositionProvider()
            state = PositionProvidingCodegenState(default_indent=self.module.default_indent,
                                                  default_newline=self.module.default_newline, provider=provider)
            state.indent_tokens = list(indents)
            stmt._codegen(state)
            positions = provider._computed
            found = self._local[id(stmt)] = (positions, line - positions[stmt].start.line)
        return found
