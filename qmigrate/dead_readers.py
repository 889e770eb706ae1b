"""A reader that nothing reads goes with the pipeline migrated beside it.

    def feed(self):
        filename_queue = tf.train.string_input_producer([self.path])
        reader = tf.TFRecordReader()          # made, never read
        _, record = self.reader.read(filename_queue)
        ...

Once the pipeline is a dataset, the unread `reader` is the last queue name of the function, and
it keeps the file's queue-runner plumbing alive for no one. `remove` drops its line.

The same holds for the options made for a reader the migration removed (`options =
tf.python_io.TFRecordOptions(ZLIB)`, read only by `tf.TFRecordReader(options=options)`: the
dataset takes `compression_type=` instead).

Contract: it applies only in a top-level function or a method of a top-level class in which a
queue call was migrated (`fixed_calls`), and only to a line that is just `name = <reader
class>(...)` (a TensorFlow reader of the catalogue) or `name = TFRecordOptions(...)` that was
read before the rewrite, outside any loop, whose arguments call nothing (dead_datasets.plain),
and whose name occurs nowhere else in the function, nested functions, `global` and `nonlocal`
statements included. Making a reader or its options has no effect but a node in the graph, or a
Python object, that nothing uses, so removing it changes nothing the program does. Comments right
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


_OPTIONS = ("tensorflow.python_io.TFRecordOptions", "tensorflow.io.TFRecordOptions")


def _made(call: cst.Call, imports: ImportMap) -> bool:
    """Whether the call makes a TensorFlow reader of the catalogue, or TFRecordOptions."""
    name = imports.resolve(call.func)
    return rule_for(name) in READERS or name in _OPTIONS


def _readers(function: cst.FunctionDef, imports: ImportMap):
    """(name, call) of each `name = <reader class or TFRecordOptions>(plain arguments)` line of the
    function's own, outside loops (options only when the function read them); a name made so
    twice is left out."""
    found = {}
    for line in own_lines(function, outside_loops=True):
        assigned = assigned_call(line)
        if assigned is not None and _made(assigned[1], imports) \
                and all(not arg.star and plain(arg.value) for arg in assigned[1].args):
            if imports.resolve(assigned[1].func) in _OPTIONS and occurrences(function, assigned[0]) < 2:
                continue  # never read: the user's own, not left by the migration
            found.setdefault(assigned[0], []).append(assigned[1])
    return [(name, calls[0]) for name, calls in found.items() if len(calls) == 1]


def _reader_line(function: cst.FunctionDef, name: str, imports: ImportMap) -> Optional[cst.SimpleStatementLine]:
    """The line of the function (as rewritten) that makes the reader (or options) `name`."""
    for line in own_lines(function, outside_loops=True):
        assigned = assigned_call(line)
        if assigned is not None and assigned[0] == name and _made(assigned[1], imports):
            return line
    return None
