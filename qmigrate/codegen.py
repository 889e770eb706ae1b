"""A module's source text, reusing the text of top-level statements generated before.

One file's analysis generates the code of several versions of its module, which share most
top-level statements (statement_memo). A top-level statement's text depends only on the
statement and on its module's default indentation and newline, so it is generated once.

`changed_text` gives the text of the statements of a rewritten module that the module it was
made from does not have: top-level statements parse independently of one another, so they are
all a verification needs to parse again.

`remember_source` gives the statements of a module parsed from a file the texts they have in it
(source_texts), so that only statements a rewrite makes anew are ever generated.
"""
import ast
from typing import Dict, List, Optional, Tuple, Union

import libcst as cst

from qmigrate.positions import statement_lines
from qmigrate.statement_memo import StatementMemo, same_tree, shape


def _generate(statement: cst.CSTNode, layout: Tuple[str, str]) -> str:
    writer = _WRITERS.get(layout)
    if writer is None:  # (an empty module of that layout: code_for_node reads only its layout)
        writer = _WRITERS[layout] = cst.Module(body=[], default_indent=layout[0], default_newline=layout[1])
    return writer.code_for_node(statement)


_WRITERS: Dict[Tuple[str, str], cst.Module] = {}


_TEXTS: StatementMemo[str] = StatementMemo(_generate)


def statement_texts(module: cst.Module) -> List[str]:
    """The text of each statement of `module.body`, as `module.code` writes it."""
    layout = (module.default_indent, module.default_newline)
    return [_TEXTS.get(statement, layout) for statement in module.body]


def source_texts(module: cst.Module, source: Union[bytes, str], tree: Optional[ast.AST]) -> Optional[List[str]]:
    """The text of each statement of `module.body` as libcst writes it, cut from `source`, the
    file `module` and `tree` (the stdlib's) were parsed from; None where the cut is not certain.

    libcst writes a module as its header lines, its statements and its footer lines, and gives
    every statement its text from the blank and comment lines before it (`leading_lines`, one
    line each) down to the next statement's. So statement k starts `len(leading_lines)` lines
    above its first token, which the stdlib tree places (a decorated def's first decorator).
    Every line counted as a blank or comment line is checked to be one, and the first-token
    lines to be neither: a file the cut would get wrong (a `;` after a backslash, a lone carriage
    return) gives None.
    """
    if tree is None or not module.has_trailing_newline or not module.body:
        return None
    if isinstance(source, bytes):
        if source.startswith(b"\xef\xbb\xbf"):
            return None
        try:
            source = source.decode(module.encoding)
        except (LookupError, UnicodeDecodeError):
            return None
    if not source.endswith("\n") or source.count("\r") != source.count("\r\n"):
        return None
    lines = source.split("\n")[:-1]  # line n is lines[n - 1], without its "\n"
    paired = statement_lines(module.body, tree.body)  # (`a = 1; b = 2` is one statement for libcst)
    if paired is None:
        return None
    firsts = [min([line] + [d.lineno for d in getattr(node, "decorator_list", ())]) for line, node in paired]
    starts = []
    previous_first = len(module.header)
    for statement, first in zip(module.body, firsts):
        start = first - len(statement.leading_lines)
        if start <= previous_first or first > len(lines) or not _first_line(lines[first - 1], statement):
            return None
        starts.append(start)
        previous_first = first
    footer = len(lines) - len(module.footer) + 1  # the footer's first line
    if starts[0] != len(module.header) + 1 or footer <= previous_first:
        return None
    empty = list(range(1, starts[0])) + list(range(footer, len(lines) + 1))
    for start, first in zip(starts, firsts):
        empty.extend(range(start, first))
    if not all(_empty_line(lines[n - 1]) for n in empty):
        return None
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    ends = starts[1:] + [footer]
    return [source[offsets[start - 1]:offsets[end - 1]] for start, end in zip(starts, ends)]


def _empty_line(line: str) -> bool:
    """A blank or comment line (one EmptyLine of libcst's; a backslash ends no comment)."""
    stripped = line.strip(" \t\f\r")
    return not stripped or stripped.startswith("#")


def _first_line(line: str, statement: cst.CSTNode) -> bool:
    """Whether `line` may hold the first token of `statement` (a decorator's `@` for a decorated def)."""
    stripped = line.strip(" \t\f\r")
    if getattr(statement, "decorators", ()):
        return stripped.startswith("@")
    return bool(stripped) and not stripped.startswith("#") and not line[:1].isspace()


def remember_source(module: cst.Module, source: Union[bytes, str], tree: Optional[ast.AST]) -> None:
    """Give `module`'s statements their texts in `source` (source_texts), if the cut is certain:
    statement_texts then generates none of them, nor any statement of the same tree."""
    texts = source_texts(module, source, tree)
    if texts is None:
        return
    layout = (module.default_indent, module.default_newline)
    for statement, text in zip(module.body, texts):
        _TEXTS.remember(statement, layout, text)


def module_code(module: cst.Module) -> str:
    """`module.code`, generating only the top-level statements not generated before."""
    if not module.body or not module.has_trailing_newline:
        # libcst then adds or removes a final newline of the whole text: let it.
        return module.code
    return "".join([module.code_for_node(line) for line in module.header] + statement_texts(module)
                   + [module.code_for_node(line) for line in module.footer])


def module_bytes(module: cst.Module) -> bytes:
    """`module.bytes`, as module_code makes the text."""
    return module_code(module).encode(module.encoding)


def changed_text(old: cst.Module, new: cst.Module) -> str:
    """The text of the top-level statements of `new` that `old` does not have (the same tree), in
    order. Each is whole lines when `new` ends with a newline."""
    olds: Dict[Tuple[type, str], List[cst.CSTNode]] = {}
    for statement in old.body:
        olds.setdefault(shape(statement), []).append(statement)
    return "".join(text for statement, text in zip(new.body, statement_texts(new))
                   if not any(same_tree(statement, before) for before in olds.get(shape(statement), ())))
