"""Words about queues that a migration leaves behind: comments on the replaced plumbing and the
messages a pipeline prints ("Filling queue with %d CIFAR images").

The new tf.data chain says what it does, one stage per line: a comment block that talks about a
queue and sat on code the migration moved or removed is dropped. A printed or logged message
keeps its meaning with the words of the new pipeline: the queue it filled is now the shuffle
buffer (or, without a record shuffle, the input pipeline).
"""
import re
from typing import List, Sequence

import libcst as cst

from qmigrate import cstutil

# `queue`, `enqueue`, `dequeue` in any case, queue classes (`RandomShuffleQueue`, `QueueRunner`),
# and the names of queues (`filename_queue`, `input_queue`: an identifier that ends in `_queue`).
_QUEUE = re.compile(r"(?i:\b(en|de)?queue|[A-Za-z0-9]_queue\b)|[A-Za-z]Queue")
_QUEUE_WORD = re.compile(r"\b(example |filename |input )?queue(s?)\b", re.IGNORECASE)
_MESSAGE_CALLS = {"print", "info", "warning", "warn", "debug", "log", "write"}


def _blocks(lines: Sequence[cst.EmptyLine]) -> List[List[cst.EmptyLine]]:
    """Runs of comment lines (a blank line ends one; a blank line is a run of its own)."""
    out: List[List[cst.EmptyLine]] = []
    for line in lines:
        if line.comment is None or not out or out[-1][-1].comment is None:
            out.append([line])
        else:
            out[-1].append(line)
    return out


def without_queue_comments(lines: Sequence[cst.EmptyLine]) -> List[cst.EmptyLine]:
    """The lines, less every comment block of which a line talks about a queue."""
    kept: List[cst.EmptyLine] = []
    for block in _blocks(lines):
        if not any(line.comment is not None and _QUEUE.search(line.comment.value) for line in block):
            kept.extend(block)
    return kept


def moved_comments(stmt: cst.BaseStatement, leading_only: bool = False) -> List[cst.EmptyLine]:
    """The comments of a statement the migration removes, as lines to keep above the new code:
    the blocks above it and each comment within it (a trailing `# queue capacity` on its own),
    less those that talk about a queue."""
    own = [line for line in without_queue_comments(stmt.leading_lines) if line.comment is not None]
    if leading_only:
        return own
    inner = cstutil.comments_in(stmt.with_changes(leading_lines=[]))
    return own + [line for line in inner if not _QUEUE.search(line.comment.value)]


def strip_statement(stmt: cst.BaseStatement) -> cst.BaseStatement:
    """The statement without the queue comment blocks above it."""
    lines = without_queue_comments(stmt.leading_lines)
    return stmt if len(lines) == len(stmt.leading_lines) else stmt.with_changes(leading_lines=lines)


def _reword(text: str, buffer: str) -> str:
    def replace(match):
        plural = match.group(2)
        word = buffer + ("s" if plural else "")
        original = match.group(0)
        return word[0].upper() + word[1:] if original[0].isupper() else word
    return _QUEUE_WORD.sub(replace, text)


def _prints(call: cst.Call) -> bool:
    """Whether a call prints or logs (`print`, `logging.info`, `tf.logging.warning`, ...)."""
    func = call.func
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
    return name in _MESSAGE_CALLS


class _Messages(cst.CSTTransformer):
    def __init__(self, buffer: str):
        self.buffer = buffer
        self.depth = 0

    def visit_Call(self, node: cst.Call) -> None:
        self.depth += _prints(node)

    def leave_Call(self, original_node, updated_node):
        self.depth -= _prints(original_node)
        return updated_node

    def leave_SimpleString(self, original_node, updated_node):
        if self.depth and _QUEUE.search(updated_node.value):
            return updated_node.with_changes(value=_reword(updated_node.value, self.buffer))
        return updated_node


class _QueueStrings(cst.CSTVisitor):
    def __init__(self):
        self.found = False

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.found = self.found or bool(_QUEUE.search(node.value))


def reword_messages(stmt: cst.BaseStatement, shuffles: bool) -> cst.BaseStatement:
    """The statement with the queue in its printed or logged strings named as the new pipeline's
    stage: the shuffle buffer when records are shuffled, else the input pipeline (the statement
    itself when no string of it names a queue)."""
    strings = _QueueStrings()
    cstutil.walk(stmt, strings)  # most statements have no such string: no need to copy them
    if not strings.found:
        return stmt
    return stmt.visit(_Messages("shuffle buffer" if shuffles else "input pipeline"))
