"""Tell the Coordinators of a program's own Python threads from those of queue runners.

`tf.train.Coordinator` is a general thread helper: code with no queue at all uses it to stop and
join `threading.Thread` workers:

    coord = tf.train.Coordinator()
    workers = [threading.Thread(target=work, args=(coord, i)) for i in range(4)]
    ...
    coord.join(workers)

or `coord.join(threads)` over threads it never passed to them. Such a coordinator is no queue
plumbing: nothing to report and nothing to remove (`--check` must not fail a build on it). So is,
in a file with no other queue API, one that nothing but its own methods use: a migration leaves
it where `coord.request_stop(e)` hands it an exception for `coord.join(threads)` to raise again
(`threads = []`), and running qmigrate again on its output must find nothing to do.
"""
from typing import List, Set

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap

# What the program's threads and their starter ask of a coordinator.
_METHODS = {"should_stop", "request_stop", "join", "register_thread", "stop_on_exception", "wait_for_stop",
            "clear_stop", "raise_requested_exception", "joined"}
_THREAD = "threading.Thread"


class _Uses(cst.CSTVisitor):
    """Counts the loads of one name in a scope that are neither a coordinator method call on it
    nor a value handed to a `threading.Thread(...)` (`other`)."""

    def __init__(self, name: str, imports: ImportMap):
        self.name, self.imports = name, imports
        self.parents: List[cst.CSTNode] = []
        self.other = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name) and node.value == self.name:
            self._count(node)
        self.parents.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.parents.pop()

    def _count(self, node: cst.Name) -> None:
        parent = self.parents[-1] if self.parents else None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            self.other += parent.attr.value not in _METHODS
        elif isinstance(parent, cst.Attribute) or isinstance(parent, cst.Arg) and parent.keyword is node:
            pass  # an attribute's or a keyword's name, not the variable
        elif isinstance(parent, (cst.AssignTarget, cst.Param)):
            pass  # the binding itself
        elif not any(isinstance(up, cst.Call) and self.imports.resolve(up.func) == _THREAD for up in self.parents):
            self.other += 1


def python_threads_only(module: cst.Module, imports: ImportMap, coordinators: List[cst.Call],
                        threads_needed: bool = True) -> Set[int]:
    """ids of the `tf.train.Coordinator()` calls of a module that starts `threading.Thread`s (any
    module, without `threads_needed`), each assigned to a plain name in a function (or at the
    module's top level), whose every load in that scope is a coordinator method call
    (`should_stop`, `request_stop`, `join`, ...) or a value handed to a `threading.Thread(...)`.
    Loads in the functions and classes the scope defines count too (a parameter of the same name
    there only makes the test stricter). Such a coordinator reaches no thread it was not handed:
    no queue runner can be started with it."""
    found: Set[int] = set()
    if threads_needed and not any(imports.resolve(call.func) == _THREAD for call in cstutil.calls_of(module)):
        return found
    wanted = {id(call) for call in coordinators}
    scopes = [module] + cstutil.functions_in(module)
    for scope in scopes:
        for stmt in cstutil.simple_statements(scope):
            assign = cstutil.single_assign(stmt)
            if assign is None or id(assign[1]) not in wanted or not isinstance(assign[0], cst.Name):
                continue
            uses = _Uses(assign[0].value, imports)
            cstutil.walk(scope, uses)
            if not uses.other:
                found.add(id(assign[1]))
    return found

