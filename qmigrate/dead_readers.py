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
- a value the function read before the rewrite and reads no more (`capacity = ...` and
  `num_threads = cfg.threads_per_gpu * cfg.num_gpu`, which only the queue calls took; then the
  values only the dropped lines read, `num_examples_per_epoch` of `min_queue_examples`), computed
  only from names, attributes, literals, operators and the builtins that only compute (`int`,
  `min`, `len`...).

Contract: it applies only in a top-level function or a method of a top-level class in which a
queue call was migrated (`fixed_calls`), only to a line that is just `name = <value>`, outside
any loop, whose name then occurs nowhere else in the function (nested functions, `global` and
`nonlocal` statements included), and, for options and values, only when the function read that
name before the rewrite; a value only where that line was the name's one binding in the function,
and not in a function that calls `locals`, `vars`, `eval` or `exec` (they read names unseen). A
reader's or its options' arguments call nothing (dead_datasets.plain). Making such a value has no
effect but a graph node, or a Python object, that nothing uses, so removing it changes nothing the
program does. Comments right above the line go with it; a section's heading stays, and so does
the blank line above it (dead_datasets.drop_line). `drop_dead_values`, once the queue-runner
plumbing went too, applies the values' rule to every function that differs from its original
(`threads = []`, read only by the `coord.join(threads)` that went).
"""
from collections import Counter
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
    dropped = set()

    def edit(function: cst.FunctionDef, before: cst.FunctionDef) -> cst.FunctionDef:
        if not any(id(call) in fixed_calls for call in cstutil.calls_of(before)):
            return function
        edited = function
        for name, old_call in _readers(before, imports) if readers else ():
            line = _reader_line(edited, name, imports)
            if line is None or occurrences(edited, name) != 1:
                continue
            without = drop_line(edited, line)
            if without is not None:
                edited = without
                dropped.add(id(old_call))
        return without_dead_values(edited, before)

    return _edit_paired(old, new, edit), dropped


def drop_dead_values(old: cst.Module, new: cst.Module) -> cst.Module:
    """`new` without the values (`name = <pure value>`) that a function qmigrate changed read
    before and no longer reads: what only the queue-runner plumbing read (`threads = []` of
    `coord.join(threads)`). The same rule as `remove`'s for values, in every function that
    differs from its original."""
    return _edit_paired(old, new, lambda function, before: function if function.deep_equals(before)
                        else without_dead_values(function, before))


def _edit_paired(old: cst.Module, new: cst.Module, edit) -> cst.Module:
    """`new` with each function that has an original in `old` under the same path
    (functions_by_path) replaced by `edit(function, original)` (the same node: unchanged)."""
    old_functions, replaced = functions_by_path(old), {}
    for path, function in functions_by_path(new).items():
        before = old_functions.get(path)
        if before is None:
            continue
        edited = edit(function, before)
        if edited is not function:
            replaced[id(function)] = edited
    return new.visit(Swap(replaced)) if replaced else new


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


_DYNAMIC_READS = ("locals", "vars", "eval", "exec")


def without_dead_values(function: cst.FunctionDef, before: cst.FunctionDef) -> cst.FunctionDef:
    """The function without the lines `name = <pure value>` that the function read before the
    rewrite and no longer reads (a capacity or thread count only the queue calls took), and then
    without those only the dropped lines read (`min_queue_examples`'s
    `num_examples_per_epoch`), until none is left. A name bound more than once in the function
    before, or read nowhere before (the user's own unused value), stays."""
    lines = [assigned for assigned in map(assigned_value, own_lines(before, outside_loops=True))
             if assigned is not None]
    bound = Counter(name for name, _ in lines)
    was = name_counts(before)
    if any(was[name] for name in _DYNAMIC_READS):
        return function  # locals() or eval() may read any name
    # read before: it occurs beyond its one binding line (name_counts counts the binding too)
    candidates = {name for name, value in lines if bound[name] == 1 and was[name] > 1 and _pure(value)}
    while candidates:
        now = name_counts(function)
        dead = []  # (line, name) of each candidate nothing reads now
        for line in own_lines(function, outside_loops=True):
            assigned = assigned_value(line)
            if assigned is not None and assigned[0] in candidates and now[assigned[0]] == 1:
                dead.append((line, assigned[0]))
        if not dead:
            break
        for line, name in dead:
            function = drop_line(function, line) or function
            candidates.discard(name)
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
