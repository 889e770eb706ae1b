"""Why reader methods chosen at run time stay, told where the user reads it: a caller's batch whose
tensors come from `reader.prepare_reader(queue)` ("a call qmigrate does not follow") and each
class's reader that returns its records "to the callers of prepare_reader()" are told that the
classes defining the method go together with every call of it or not at all, and what kept them
(dispatched_readers.Refusal: a Python 2 file naming the method, a class whose per-record code a
map function cannot hold, records of different structures, a call that stays, ...).

Set side, after the run; it only rewrites the messages of diagnostics that stay.
"""
import ast
import dataclasses
import os
from typing import Dict, Optional

from qmigrate.diagnostics import FileResult
from qmigrate.dispatched_readers import Refusal, calls
from qmigrate.engine import UNLINKED
from qmigrate.factory_reasons import FROM_CALL
from qmigrate.unlinked import RETURNED_TO


def _place(refusal: Refusal, path: str) -> str:
    """Where the refusal points, as seen from `path`'s diagnostics."""
    if refusal.path == path:
        return "line %d" % refusal.line if refusal.line else "this file"
    where = os.path.relpath(refusal.path, os.path.dirname(path))
    return "%s:%d" % (where, refusal.line) if refusal.line else where


def _why(refusal: Refusal, path: str) -> str:
    return ("the classes of the run that define %s() are migrated together with every call of it, or not at all, "
            "and not here: %s" % (refusal.method, refusal.why % _place(refusal, path)))


def explain(message: str, path: str, line: int, refused: Dict[str, Refusal], program) -> Optional[str]:
    """`message` (of a diagnostic at `line` of `path`) told why the family of the reader method it
    names, or whose call takes the queue it is about, stays; None when there is none."""
    if UNLINKED in message:
        fed = _fed_call(program, path, line, refused)
        if fed is None:
            return None
        told = "it feeds %s() (line %d), a reader method of classes chosen at run time: %s" % (
            fed[0], fed[1], _why(refused[fed[0].rsplit(".", 1)[-1]], path))
        return message.replace(UNLINKED, told, 1)
    found = FROM_CALL.search(message)
    if found is not None and found.group("method") in refused:
        told = "the tensors it batches come from %s.%s() (line %s), a reader method of classes chosen at run time: %s" % (
            found.group("object"), found.group("method"), found.group("line"), _why(refused[found.group("method")], path))
        return message[:found.start()] + told + message[found.end():]
    returned = RETURNED_TO.search(message)
    if returned is not None and returned.group(1).rsplit(".", 1)[-1] in refused:
        refusal = refused[returned.group(1).rsplit(".", 1)[-1]]
        return message[:returned.end()] + "; " + _why(refusal, path) + message[returned.end():]
    return None


def _fed_call(program, path: str, line: int, refused: Dict[str, Refusal]):
    """(`obj.method`, line) of a call of a refused method, in the function that binds a name at
    `line` (`queue = tf.train.string_input_producer(...)`), taking that name; or None."""
    tree = program.tree(path)
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and node.lineno <= line <= node.end_lineno] if tree is not None else []
    if not functions:
        return None
    scope = min(functions, key=lambda node: node.end_lineno - node.lineno)
    bound = {target.id for node in ast.walk(scope) if isinstance(node, ast.Assign) and node.lineno == line
             for target in node.targets if isinstance(target, ast.Name)}
    for method, call in sorted(calls(scope), key=lambda found: found[1].lineno):
        if method in refused and call.args[0].id in bound:
            return "%s.%s" % (call.func.value.id, method), call.lineno
    return None


def explain_results(results: Dict[str, FileResult], refused: Dict[str, Refusal], program) -> None:
    """Every remaining diagnostic of the run that `explain` tells, told so."""
    if not refused:
        return
    for path, result in list(results.items()):
        diagnostics, changed = [], False
        for d in result.diagnostics:
            told = explain(d.message, path, d.line, refused, program) if not d.fixed and not d.note else None
            if told is not None:
                d, changed = dataclasses.replace(d, message=told), True
            diagnostics.append(d)
        if changed:
            results[path] = dataclasses.replace(result, diagnostics=tuple(diagnostics))
