"""Say why a hand-built queue that no pipeline took is not input, from what its function shows.

Queues also carry things other than input records, and tf.data replaces none of them:

- a queue with `shared_name=` is shared with other sessions and processes by that name: a hand-off
  between processes (RL actors fill it, a learner drains it) or, when what goes in is a constant,
  the tokens of a barrier between workers;
- a queue whose enqueue ops the function that builds it returns (or appends to lists it returns),
  with no QueueRunner to run them,
  is filled by its callers' own steps: it carries values from one step to the next (a buffer of
  the model's state primed with `enqueue_many`), not records read by input threads;
- a QueueRunner whose "queue" is an object of the module's own class runs that module's own ops in
  its thread (a custom batching op), not the enqueue ops of a queue of records.

`reasons` reads only facts the code states (a keyword, a `return`, a class definition); where
they are not all there it says nothing, and the caller falls back to where the records come from.
"""
from typing import Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import cstutil

QUEUES = ("tensorflow.FIFOQueue", "tensorflow.PaddingFIFOQueue", "tensorflow.RandomShuffleQueue")
_SHARED_NAME_POSITION = {"tensorflow.FIFOQueue": 4, "tensorflow.PaddingFIFOQueue": 4,
                         "tensorflow.RandomShuffleQueue": 6}
RUNNER = "tensorflow.train.QueueRunner"
ADD_RUNNER = "tensorflow.train.add_queue_runner"
_ENQUEUES = ("enqueue", "enqueue_many")

_KEEP = "nothing to migrate: keep it (qmigrate turns queues of input records into datasets, and this is not one)"
_SHARED_TODO = ("nothing to migrate: keep it (tf.data has no queue shared between processes; qmigrate turns queues "
                "of input records into datasets)")

Reason = Tuple[str, str]  # (why it stays, what to do)

# What a reason says of a buffer primed with enqueue_many: the one a Python-fed refusal gives way to
# (its placeholder is the model's input of each step, not records a thread feeds).
PRIMED = "(primed with enqueue_many: a buffer of the model's state)"


def _code(node: cst.CSTNode) -> str:
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _argument(call: cst.Call, keyword: str, position: Optional[int]) -> Optional[cst.BaseExpression]:
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if (arg.keyword is not None and arg.keyword.value == keyword) or (
                arg.keyword is None and index == position):
            return arg.value
    return None


def _is_none(node: Optional[cst.BaseExpression]) -> bool:
    return node is None or (isinstance(node, cst.Name) and node.value == "None")


def _innermost(module: cst.Module, wanted: set) -> Dict[int, Optional[cst.FunctionDef]]:
    """id(call) -> the innermost function around it (None at module level), for calls in `wanted`."""
    found: Dict[int, Optional[cst.FunctionDef]] = {}
    for function in cstutil.functions_in(module):  # outer functions come first: a nested one overwrites them
        for call in cstutil.calls_of(function):
            if id(call) in wanted:
                found[id(call)] = function
    return found


class _Function:
    """One function (or the module) read once: its assignments, calls and loops."""

    def __init__(self, node: cst.CSTNode, resolve):
        self.node, self.resolve = node, resolve
        self.assigns: List[cst.Assign] = cstutil.nodes_of(node, cst.Assign)
        self.calls: List[cst.Call] = cstutil.calls_of(node)
        self.returns: List[cst.Return] = cstutil.nodes_of(node, cst.Return)
        self.loops: List[cst.For] = cstutil.nodes_of(node, cst.For)

    def bound_value(self, name: str) -> Optional[cst.BaseExpression]:
        """What the only assignment of `name` in the function binds it to (None: none, or several)."""
        values = [a.value for a in self.assigns for t in a.targets
                  if isinstance(t.target, cst.Name) and t.target.value == name]
        return values[0] if len(values) == 1 else None

    def binding_of(self, call: cst.Call) -> Optional[Tuple[str, bool]]:
        """(name, whether it is a list of queues) the constructor `call` is bound to: `q = Queue(...)`
        or `qs = [Queue(...) for ...]`."""
        for assign in self.assigns:
            if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
                continue
            name = assign.targets[0].target.value
            if assign.value is call:
                return name, False
            if isinstance(assign.value, cst.ListComp) and assign.value.elt is call:
                return name, True
        return None

    def loop_around(self, node: cst.CSTNode) -> Optional[cst.For]:
        """The innermost `for` loop of the function whose body holds `node`."""
        around = None
        for loop in self.loops:
            if any(n is node for n in cstutil.calls_of(loop.body)):
                around = loop  # loops come outer first
        return around

    def is_constant(self, value: cst.BaseExpression) -> bool:
        """A literal, or a name bound once to `tf.constant(...)`."""
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)) or (
                isinstance(value, cst.Name) and value.value in ("True", "False")):
            return True
        if isinstance(value, cst.Name):
            bound = self.bound_value(value.value)
            return isinstance(bound, cst.Call) and self.resolve(bound.func) == "tensorflow.constant"
        return False


def reasons(module: cst.Module, resolve, line_of, wanted: Dict[int, str]) -> Dict[int, Reason]:
    """id(call) -> (why it stays, what to do) for the calls in `wanted` (id -> canonical name: a
    queue constructor, `tf.train.QueueRunner` or `add_queue_runner`) whose function shows the
    queue is not input. Never raises; says nothing where the facts are not all there."""
    calls = {id(c): c for c in cstutil.calls_of(module) if id(c) in wanted}
    owner = _innermost(module, set(calls))
    functions: Dict[int, _Function] = {}

    def read(call_id: int) -> _Function:
        node = owner.get(call_id) or module
        if id(node) not in functions:
            functions[id(node)] = _Function(node, resolve)
        return functions[id(node)]

    found: Dict[int, Reason] = {}
    queue_reasons: Dict[Tuple[int, str], Tuple[int, str]] = {}  # (function, queue name) -> (line, short reason)
    for call_id, call in calls.items():
        if wanted[call_id] in QUEUES:
            function = read(call_id)
            reason = _shared(call, wanted[call_id], function, line_of) or _carried(call, function, line_of)
            if reason is None:
                continue
            found[call_id] = reason
            binding = function.binding_of(call)
            if binding is not None and not binding[1]:
                queue_reasons[(id(function.node), binding[0])] = (line_of(call), _first_clause(reason[0]))
    runners: Dict[int, Reason] = {}
    for call_id, call in calls.items():
        if wanted[call_id] == RUNNER:
            function = read(call_id)
            reason = _runner(call, function, module, queue_reasons, line_of)
            if reason is not None:
                runners[call_id] = found[call_id] = reason
    for call_id, call in calls.items():
        if wanted[call_id] == ADD_RUNNER and call.args:
            runner = call.args[0].value
            if isinstance(runner, cst.Name):
                runner = read(call_id).bound_value(runner.value)
            if isinstance(runner, cst.Call) and id(runner) in runners:
                found[call_id] = runners[id(runner)]
    return found


def _first_clause(reason: str) -> str:
    """`it is shared by name ... (`shared_name=...`)` of a longer reason: what its runner says of it."""
    return reason.split(") and ", 1)[0] + ")" if ") and " in reason else reason.split(": ", 1)[0]


def _shared(call: cst.Call, kind: str, function: _Function, line_of) -> Optional[Reason]:
    """A queue with `shared_name=`: what goes in says whether it is tokens or a hand-off."""
    shared = _argument(call, "shared_name", _SHARED_NAME_POSITION[kind])
    if _is_none(shared):
        return None
    start = "it is shared by name with other sessions and processes (`shared_name=%s`)" % _code(shared)
    built = [c for c in function.calls if function.resolve(c.func) in QUEUES]
    puts = [c for c in function.calls if isinstance(c.func, cst.Attribute) and c.func.attr.value in _ENQUEUES
            and c.args] if len(built) == 1 else []  # with one queue in the function, every enqueue is its own
    if puts and all(function.is_constant(p.args[0].value) for p in puts):
        return ("%s and carries constants (`%s`, line %d): the tokens of a barrier between workers, not input"
                % (start, _code(puts[0].args[0].value), line_of(puts[0])), _SHARED_TODO)
    loops = [function.loop_around(p) for p in puts]
    if puts and all(loop is not None for loop in loops):
        header = "for %s in %s:" % (_code(loops[0].target), _code(loops[0].iter))
        return ("%s and is filled with `%s` by enqueue ops a loop builds (`%s`, line %d): a hand-off between "
                "processes (e.g. actors filling it, a learner draining it), which tf.data has no counterpart for"
                % (start, _code(puts[0].args[0].value), header, line_of(loops[0])), _SHARED_TODO)
    return ("%s: a hand-off between processes or a barrier between workers, which tf.data has no counterpart for"
            % start, _SHARED_TODO)


def _carried(call: cst.Call, function: _Function, line_of) -> Optional[Reason]:
    """A queue whose enqueue ops its function returns and no QueueRunner runs: state carried between steps."""
    if not isinstance(function.node, cst.FunctionDef):
        return None
    binding = function.binding_of(call)
    if binding is None or binding[1]:
        return None
    queue = binding[0]
    ops: List[Tuple[str, cst.Call]] = []
    for assign in function.assigns:
        value = assign.value
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value in _ENQUEUES and isinstance(value.func.value, cst.Name)
                and value.func.value.value == queue):
            if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
                return None
            ops.append((assign.targets[0].target.value, value))
    put_anywhere = [c for c in function.calls if isinstance(c.func, cst.Attribute) and c.func.attr.value in _ENQUEUES
                    and isinstance(c.func.value, cst.Name) and c.func.value.value == queue]
    if not ops or len(put_anywhere) != len(ops):
        return None  # an enqueue op not kept in a name: where it goes cannot be told
    for runner in function.calls:
        if function.resolve(runner.func) == RUNNER and queue in cstutil.name_uses(runner).loads:
            return None
    for _, op in ops:
        value = op.args[0].value if op.args else None
        if isinstance(value, cst.Name):
            bound = function.bound_value(value.value)
            if isinstance(bound, cst.Call) and function.resolve(bound.func) == "tensorflow.placeholder":
                return None  # fed from Python: python_fed's business
    returned = set()
    for ret in function.returns:
        if ret.value is not None:
            returned |= set(cstutil.name_uses(ret.value).loads)
    primed = any(op.func.attr.value == "enqueue_many" for _, op in ops)
    # Kept on the object for its other methods' callers (`self.init_ops = init_ops`): handed out
    # too; and, for a buffer primed where it is built, the ops it keeps in a list beside the
    # model's outputs (`self.out_ops = [h, push]`), its priming run there (`sess.run(init)`).
    kept: Dict[str, str] = {}
    for assign in function.assigns:
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self"):
            continue
        if isinstance(assign.value, cst.Name):
            kept[assign.value.value] = _code(target)
        elif primed and isinstance(assign.value, (cst.List, cst.Tuple)):
            for element in assign.value.elements:
                if isinstance(element.value, cst.Name):
                    kept.setdefault(element.value.value, _code(target))
    returned |= set(kept)
    run_here = {c.args[0].value.value for c in function.calls if isinstance(c.func, cst.Attribute)
                and c.func.attr.value == "run" and c.args and isinstance(c.args[0].value, cst.Name)} \
        if primed else set()
    # An op appended to a list the function returns (`init_ops.append(init)`, one queue per loop
    # pass) is returned too.
    lists = {}
    for put in function.calls:
        if (isinstance(put.func, cst.Attribute) and put.func.attr.value == "append" and len(put.args) == 1
                and isinstance(put.func.value, cst.Name) and put.func.value.value in returned
                and isinstance(put.args[0].value, cst.Name)):
            lists[put.args[0].value.value] = put.func.value.value
    names = [name for name, _ in ops]
    if not all(name in returned or name in lists or name in run_here for name in names) \
            or all(name in run_here for name in names):
        return None
    names = list(dict.fromkeys(names))  # (one name for the ops of several queues a loop builds)
    through = sorted({lists[name] for name in names if name not in returned and name in lists})
    holders = sorted({kept[name] for name in names + through if name in kept})
    by = "%s() (line %d)" % (function.node.name.value, line_of(function.node))
    if holders and not (returned - set(kept)) & set(names + through):
        handed = "kept on the object (%s) by %s" % (", ".join("`%s`" % h for h in holders), by)
    else:
        handed = "returned by %s" % by
    primings = [name for name in names if name in run_here and name not in returned and name not in lists]
    names = [name for name in names if name not in primings]
    itself = " (it runs %s itself)" % ", ".join("`%s`" % n for n in primings) if primings else ""
    return ("no queue runner fills it: its enqueue ops (%s) are %s%s for its callers to run "
            "as steps of their own%s, so it carries values from one step to the next%s, not input records"
            % (", ".join("`%s`" % n for n in names), handed,
               " in the lists %s" % ", ".join("`%s`" % n for n in through) if len(through) > 1 else
               " in the list `%s`" % through[0] if through else "", itself,
               " " + PRIMED if primed else ""), _KEEP)


def _runner(call: cst.Call, function: _Function, module: cst.Module, queue_reasons, line_of) -> Optional[Reason]:
    """A QueueRunner of a queue that stays for a reason above, or of an object of the module's own class."""
    queue = _argument(call, "queue", 0)
    if queue is None:
        return None
    if isinstance(queue, cst.Name) and (id(function.node), queue.value) in queue_reasons:
        line, why = queue_reasons[(id(function.node), queue.value)]
        return ("it runs the enqueue ops of `%s` (line %d), which stays: %s" % (queue.value, line, why), _KEEP)
    target = _code(queue)
    classes = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.ClassDef)}
    made = [a.value for a in function.assigns for t in a.targets if _code(t.target) == target]
    if len(made) != 1 or not (isinstance(made[0], cst.Call) and isinstance(made[0].func, cst.Name)
                              and made[0].func.value in classes):
        return None
    cls = classes[made[0].func.value]
    if any(function.resolve(base.value) in QUEUES + ("tensorflow.QueueBase",) for base in cls.bases):
        return None  # a queue class after all
    ops = _argument(call, "enqueue_ops", 1)
    return ("its queue `%s` is a `%s` (line %d), a class of this module, not a TensorFlow queue: the runner's "
            "thread runs this module's own ops (`%s`), not the enqueue ops of a queue of input records"
            % (target, cls.name.value, line_of(made[0]), _code(ops) if ops is not None else "none"), _KEEP)
