"""What the migration leaves unread beside a pipeline it migrated goes with it.

    def feed(self):
        filename_queue = tf.train.string_input_producer([self.path])
        reader = tf.TFRecordReader()          # made, never read
        _, record = self.reader.read(filename_queue)
        capacity = min_after_dequeue + 3 * batch_size   # read only by the shuffle_batch
        ...

Once the pipeline is a dataset, the unread `reader` is the last queue name of the function, and
it keeps the file's queue-runner plumbing alive for no one; `capacity`, which only the queue
took, is a line that reads as if it still mattered. `remove` drops such lines:
- a reader made and never read (`name = <reader class>(...)`);
- the options made for a reader that went (`options = tf.python_io.TFRecordOptions(ZLIB)`, read
  only by `tf.TFRecordReader(options=options)`: the dataset takes `compression_type=` instead);
- a value an argument of a migrated queue call read, which the function read before the rewrite
  and reads no more (`capacity = ...`, `num_threads = cfg.threads_per_gpu * cfg.num_gpu`),
  computed only from names, attributes, literals, operators and the builtins that only compute
  (`int`, `min`, `len`...).

Contract: it applies only in a top-level function or a method of a top-level class in which a
queue call was migrated (`fixed_calls`), only to a line that is just `name = <value>`, outside
any loop, whose name then occurs nowhere else in the function (nested functions, `global` and
`nonlocal` statements included), and, for options and values, only when the function read that
name before the rewrite. A reader's or its options' arguments call nothing (dead_datasets.plain).
Making such a value has no effect but a graph node, or a Python object, that nothing uses, so
removing it changes nothing the program does. Comments right above the line go with it; a
section's heading stays (dead_datasets.drop_line).
"""
from typing import Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.dead_datasets import (Swap, assigned_call, assigned_value, drop_line, functions_by_path, name_counts,
                                    occurrences, own_lines, plain)
from qmigrate.names import ImportMap
from qmigrate.rules import READERS, rule_for


def remove(old: cst.Module, new: cst.Module, imports: ImportMap, fixed_calls: Set[int],
           source: bytes) -> Tuple[cst.Module, Set[int]]:
    """`new` without the unread readers (see the module's contract), and the ids of their calls
    in `old`."""
    readers = b"Reader" in source or b"Options" in source
    old_functions, dropped, replaced = functions_by_path(old), set(), {}
    for path, function in functions_by_path(new).items():
        before = old_functions.get(path)
        if before is None or not any(id(call) in fixed_calls for call in cstutil.calls_of(before)):
            continue
        edited = function
        for name, old_call in _readers(before, imports) if readers else ():
            line = _reader_line(edited, name, imports)
            if line is None or occurrences(edited, name) != 1:
                continue
            without = drop_line(edited, line)
            if without is not None:
                edited = without
                dropped.add(id(old_call))
        edited = _without_dead_values(edited, before, _queue_arguments(before, fixed_calls))
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


_PURE_BUILTINS = ("int", "float", "min", "max", "round", "len", "abs", "bool")


def _pure(node: cst.BaseExpression) -> bool:
    """A value computed from names, attributes, literals and operators (and the builtins that only
    compute, `int(0.4 * n)`): working it out has no effect that dropping it would lose."""
    if plain(node):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _pure(node.left) and _pure(node.right)
    if isinstance(node, cst.BooleanOperation):
        return _pure(node.left) and _pure(node.right)
    if isinstance(node, cst.UnaryOperation):
        return _pure(node.expression)
    if isinstance(node, cst.Comparison):
        return _pure(node.left) and all(_pure(target.comparator) for target in node.comparisons)
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Name) and node.func.value in _PURE_BUILTINS and all(
            not arg.star and arg.keyword is None and _pure(arg.value) for arg in node.args)
    return False


def _queue_arguments(function: cst.FunctionDef, fixed_calls: Set[int]) -> Set[str]:
    """The names the arguments of the migrated queue calls of the function read."""
    names = set()
    for call in cstutil.calls_of(function):
        if id(call) in fixed_calls:
            for arg in call.args:
                names.update(cstutil.name_uses(arg.value).loads)
    return names


def _without_dead_values(function: cst.FunctionDef, before: cst.FunctionDef, read_by_queues: Set[str]) \
        -> cst.FunctionDef:
    """The function without the lines `name = <pure value>` that the migrated queue calls read
    (`read_by_queues`), which the function read before the rewrite and no longer reads (a
    capacity or thread count only the queue calls took)."""
    if not read_by_queues:
        return function
    candidates = [assigned for assigned in map(assigned_value, own_lines(before, outside_loops=True))
                  if assigned is not None and assigned[0] in read_by_queues and _pure(assigned[1])]
    if not candidates:
        return function
    was, now = name_counts(before), name_counts(function)  # one walk each, not one a line
    for name, _ in candidates:
        if was[name] < 2 or now[name] != 1:
            continue
        line = next((stmt for stmt in own_lines(function, outside_loops=True)
                     if assigned_value(stmt) is not None and assigned_value(stmt)[0] == name), None)
        if line is not None:
            function = drop_line(function, line) or function
    return function


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
