"""Queue-source helpers: functions that make a file-name producer and return its queue.

    def get_queue(base_dir, patterns, capacity=32, num_epochs=None):
        files = [f for p in patterns for f in tf.gfile.Glob(os.path.join(base_dir, p))]
        return tf.train.string_input_producer(files, capacity=capacity, num_epochs=num_epochs)

    queue = get_queue(data_dir, ['*.tfrecord'], num_epochs=epochs)   # the caller reads and batches it

The caller's chain (recognise) takes the producer's options (epochs, shuffle, seed) as if the
producer were made where the helper is called: each argument but the file names is moved into
the caller's scope by substitution (helpers.move_expression: parameters become the call's
arguments). Contract of the migrated helper (`migrate`): the same parameters, and it returns the
file names it gave the producer (its other code, such as globbing, runs as before, once per
call); the caller binds them to a fresh name (`filenames = get_queue(...)`) and builds its dataset
from that name. A helper some call leaves as it is stays, and the pipelines call a migrated copy
`<name>_files` (engine._migrate_helpers).

Only helpers whose sole queue API call is the producer, whose queue goes nowhere but the return,
and whose file names are not from match_filenames_once (a variable a one-shot iterator cannot
capture) are followed.
"""
from dataclasses import dataclass
from typing import Dict, Optional

import libcst as cst

from qmigrate import cstutil, helpers
from qmigrate.names import ImportMap, dotted
from qmigrate.rules import PRODUCERS, rule_for
from qmigrate.rules.base import Unsupported
from qmigrate.rules.producers import MATCH_FILENAMES_ONCE


@dataclass(frozen=True)
class QueueSource:
    function: cst.FunctionDef
    rule: type  # the producer's rule
    call: cst.Call  # the producer call, in the helper
    statement: cst.BaseStatement  # the `return` that gives the queue back
    removable: tuple  # the statements that make and return the queue (one, or `q = ...` and `return q`)

    @property
    def name(self) -> str:
        return self.function.name.value


def find(function: cst.FunctionDef, imports: ImportMap) -> Optional[QueueSource]:
    """The queue-source helper `function` is, or None."""
    if function.decorators or not isinstance(function.body, cst.IndentedBlock) or not function.body.body:
        return None
    body = list(function.body.body)
    last = cstutil.single_small(body[-1])
    if not isinstance(last, cst.Return) or last.value is None:
        return None
    value, removable = last.value, (body[-1],)
    if isinstance(value, cst.Name) and len(body) >= 2:
        assign = cstutil.single_assign(body[-2])
        if assign and isinstance(assign[0], cst.Name) and assign[0].value == value.value:
            value, removable = assign[1], (body[-2], body[-1])
            if cstutil.name_uses(function.body).loads.count(assign[0].value) != 1:
                return None
    if not isinstance(value, cst.Call):
        return None
    rule = rule_for(imports.resolve(value.func))
    if rule not in PRODUCERS or not hasattr(rule, "bind"):
        return None
    try:
        bound = rule.bind(value)
    except Unsupported:
        return None
    if "string_tensor" not in bound:
        return None  # not a file-name producer
    for call in cstutil.calls_of(function.body):
        name = imports.resolve(call.func)
        if call is not value and (rule_for(name) is not None or name == MATCH_FILENAMES_ONCE):
            return None
    return QueueSource(function, rule, value, body[-1], removable)


def producer_call(source: QueueSource, call: cst.Call, files: str, module_names: set,
                  shadowed: frozenset) -> cst.Call:
    """The helper's producer call as the caller would have written it at `call`: over the name
    `files`, its other arguments moved into the caller's scope. NotMovable when one cannot be."""
    arguments = helpers.bind_call(source.function, call)
    bound = source.rule.bind(source.call)
    definitions = helpers.reaching_definitions(source.function, source.removable[0])
    args = []
    for arg in source.call.args:
        if arg.value is bound["string_tensor"]:
            new_value = cst.Name(files)
        else:
            new_value = helpers.move_expression(arg.value, source.function, source.removable[0], arguments,
                                                module_names, definitions=definitions, shadowed=shadowed)
        args.append(arg.with_changes(value=new_value))
    return source.call.with_changes(args=args)


def files_statement(call: cst.Call, files: str, callee: str, leading) -> cst.BaseStatement:
    """`files = <the helper's call>` (calling `callee`: the helper or its migrated copy)."""
    new_call = call.with_changes(func=cst.Name(callee)) if callee != dotted(call.func) else call
    return cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(files))], value=new_call)], leading_lines=leading)


def migrate(function: cst.FunctionDef, source: QueueSource) -> cst.FunctionDef:
    """The helper returning the file names it gave the producer, instead of the producer's queue."""
    files = source.rule.bind(source.call)["string_tensor"]
    positions = [list(source.function.body.body).index(stmt) for stmt in source.removable]
    body = list(function.body.body)
    returned = cst.SimpleStatementLine(body=[cst.Return(value=files.with_changes(lpar=[], rpar=[]))],
                                       leading_lines=body[positions[0]].leading_lines)
    body = [stmt for i, stmt in enumerate(body) if i not in positions] + [returned]
    return function.with_changes(body=function.body.with_changes(body=body))


def copy_name(name: str) -> str:
    """The migrated copy's name, when the helper stays for calls left as they are."""
    return name + "_files"


def called(value, sources: Dict[str, QueueSource]) -> Optional[QueueSource]:
    """The queue-source helper `value` calls by name, or None."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        return sources.get(value.func.value)
    return None
