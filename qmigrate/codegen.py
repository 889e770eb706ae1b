"""A module's source text, reusing the text of top-level statements generated before.

One file's analysis generates the code of several versions of its module, which share most
top-level statements (statement_memo). A top-level statement's text depends only on the
statement and on its module's default indentation and newline, so it is generated once.

`changed_text` gives the text of the statements of a rewritten module that the module it was
made from does not have: top-level statements parse independently of one another, so they are
all a verification needs to parse again.
"""
from typing import Dict, List, Tuple

import libcst as cst

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
