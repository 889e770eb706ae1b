"""Tower loops whose input qmigrate cannot trace, in a run that leaves queue-based input behind.

A module with no queue code of its own may still build the towers that consume a queue: its
loop puts each iteration on a device and reads the input through a callback, a parameter or a
per-tower list built elsewhere (`loss = self.graph_def(gpu_id=i)`, `self.build_tower(images[i])`).
No link reaches such a loop, so nothing would say that, once the queue is migrated by hand, each
tower needs its own shard. This module finds those loops with the standard library's parser
(cheap: it only runs on files that mention "device", in a run that leaves queue code behind).
"""
import ast
from typing import List, Optional, Set, Tuple

from qmigrate.engine import suppressed_lines_of
from qmigrate.tower_reads import TowerReads, per_tower_reads


def tower_loops(source: bytes, code: str) -> List[Tuple[int, int, str, Optional[TowerReads]]]:
    """(line, column, loop header, the lists its towers index by the loop variable or None) of
    every `for` loop that places each iteration on a device chosen by the loop variable, not
    silenced for `code`; [] when the source does not parse."""
    try:
        tree = ast.parse(source)
        text = source.decode("utf-8", "replace")
    except (SyntaxError, ValueError):
        return []
    silenced = suppressed_lines_of(text)
    lines = text.splitlines()
    found = []
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        if not (_places_devices_by(loop, _bound_names(loop.target)) and _builds_towers(loop)):
            continue
        codes = silenced.get(loop.lineno, set())
        if code in codes or "*" in codes:
            continue
        header = lines[loop.lineno - 1].strip() if loop.lineno <= len(lines) else "for"
        found.append((loop.lineno, loop.col_offset + 1, header.rstrip(":").strip(), per_tower_reads(tree, loop)))
    return found


def _bound_names(target: ast.AST) -> Set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def _places_devices_by(loop: ast.AST, names: Set[str]) -> bool:
    """`with <x>.device(<device named by a loop variable>)` in the loop body (not in nested defs):
    the variable itself, formatted into a string or indexing a list (`'/gpu:%d' % i`,
    `devices[i]`), never an attribute of it (`tf.device(v.device)` places per variable, not per tower)."""
    for statement in _own_statements(loop.body):
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                call = _device_call(item.context_expr)
                if call is not None and call.args and names & _names_naming(call.args[0]):
                    return True
    return False


def _builds_towers(loop: ast.AST) -> bool:
    """The loop builds model replicas: it shares variables between iterations (`reuse=...`,
    `reuse_variables()`, `AUTO_REUSE`) or names a tower scope. Device loops that only move or
    reduce tensors (all-reduce, gradient packing) do neither."""
    for node in ast.walk(loop):
        if isinstance(node, ast.keyword) and node.arg == "reuse":
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("reuse_variables", "AUTO_REUSE"):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "tower" in node.value.lower():
            return True
    return False


def _device_call(expression: ast.AST) -> Optional[ast.Call]:
    if not isinstance(expression, ast.Call):
        return None
    func = expression.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return expression if name == "device" else None


def _names_naming(node: ast.AST) -> Set[str]:
    """Names a device expression is built from: not those only used through an attribute."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return set()
    if isinstance(node, ast.Call):  # '/gpu:{}'.format(i), '/gpu:' + str(i)
        found = _names_naming(node.func.value) if isinstance(node.func, ast.Attribute) else set()
        for argument in list(node.args) + [k.value for k in node.keywords]:
            found |= _names_naming(argument)
        return found
    found = set()
    for child in ast.iter_child_nodes(node):
        found |= _names_naming(child)
    return found


def _own_statements(body):
    """Every statement under `body`, through compound statements but not into nested functions
    or classes (their code runs elsewhere)."""
    stack = list(body)
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(statement, field, None) or ())
