"""A reader that nothing reads goes with the pipeline migrated beside it.

    def feed(self):
        filename_queue = tf.train.string_input_producer([self.path])
        reader = tf.TFRecordReader()          # made, never read
        _, record = self.reader.read(filename_queue)
        ...

Once the pipeline is a dataset, the unread `reader` is the last queue name of the function, and
it keeps the file's queue-runner plumbing alive for no one. `remove` drops its line.

Contract: it applies only in a top-level function or a method of a top-level class in which a
queue call was migrated (`fixed_calls`), and only to a line that is just `name = <reader
class>(...)` (a TensorFlow reader of the catalogue), outside any loop, whose arguments call
nothing (dead_datasets.plain), and whose name occurs nowhere else in the function, nested
functions, `global` and `nonlocal` statements included. Making a reader has no effect but a node
in the graph that nothing runs, so removing it changes nothing the program does. Comments right
above the line go with it; a section's heading stays (dead_datasets.drop_line).
"""
from typing import Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.dead_datasets import (Swap, assigned_call, drop_line, functions_by_path, occurrences, own_lines,
                                    plain)
from qmigrate.names import ImportMap
from qmigrate.rules import READERS, rule_for


def remove(old: cst.Module, new: cst.Module, imports: ImportMap, fixed_calls: Set[int],
           source: bytes) -> Tuple[cst.Module, Set[int]]:
    """`new` without the unread readers (see the module's contract), and the ids of their calls
    in `old`."""
    if b"Reader" not in source:
        return new, set()
    old_functions, dropped, replaced = functions_by_path(old), set(), {}
    for path, function in functions_by_path(new).items():
        before = old_functions.get(path)
        if before is None or not any(id(call) in fixed_calls for call in cstutil.calls_of(before)):
            continue
        edited = function
        for name, old_call in _readers(before, imports):
            line = _reader_line(edited, name, imports)
            if line is None or occurrences(edited, name) != 1:
                continue
            without = drop_line(edited, line)
            if without is not None:
                edited = without
                dropped.add(id(old_call))
        if edited is not function:
            replaced[id(function)] = edited
    if not replaced:
        return new, set()
    return new.visit(Swap(replaced)), dropped


def _readers(function: cst.FunctionDef, imports: ImportMap):
    """(name, call) of each `name = <reader class>(plain arguments)` line of the function's own,
    outside loops; a name made so twice is left out."""
    found = {}
    for line in own_lines(function, outside_loops=True):
        assigned = assigned_call(line)
        if assigned is not None and rule_for(imports.resolve(assigned[1].func)) in READERS \
                and all(not arg.star and plain(arg.value) for arg in assigned[1].args):
            found.setdefault(assigned[0], []).append(assigned[1])
    return [(name, calls[0]) for name, calls in found.items() if len(calls) == 1]


def _reader_line(function: cst.FunctionDef, name: str, imports: ImportMap) -> Optional[cst.SimpleStatementLine]:
    """The line of the function (as rewritten) that makes the reader `name`."""
    for line in own_lines(function, outside_loops=True):
        assigned = assigned_call(line)
        if assigned is not None and assigned[0] == name and rule_for(imports.resolve(assigned[1].func)) in READERS:
            return line
    return None
