"""Tell hand-built queues that feed the graph from queues whose elements only go back to Python.

A work list between threads, a hand-off between RL actors and a learner, or a token queue between
workers is dequeued by `session.run` and never read by graph ops: tf.data would not replace it.
"""
from collections import Counter
from typing import Dict, List, Set

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import dotted

RAW_QUEUES = ("tensorflow.FIFOQueue", "tensorflow.PaddingFIFOQueue", "tensorflow.RandomShuffleQueue",
              "tensorflow.PriorityQueue")
_DEQUEUES = ("dequeue", "dequeue_many", "dequeue_up_to")


class _Collector(cst.CSTVisitor):
    def __init__(self, constructors: Dict[int, cst.Call]):
        self.constructors = constructors
        self.queue_names: Dict[str, int] = {}  # `q` or `self.q` -> id(constructor call)
        self.dequeues: List[cst.Call] = []
        self.dequeued_into: Dict[int, List[str]] = {}  # id(dequeue call) -> names it is assigned to
        self.runs: List[cst.Call] = []  # `<anything>.run(...)` calls

    def visit_Assign(self, node: cst.Assign) -> None:
        if id(node.value) in self.constructors and len(node.targets) == 1:
            name = dotted(node.targets[0].target)
            if name:
                self.queue_names[name] = id(node.value)
        if isinstance(node.value, cst.Call):
            names = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
            self.dequeued_into[id(node.value)] = names

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute):
            if node.func.attr.value in _DEQUEUES:
                self.dequeues.append(node)
            elif node.func.attr.value == "run":
                self.runs.append(node)


def fetched_only(module: cst.Module, constructors: List[cst.Call]) -> Set[int]:
    """ids of the queue constructor calls whose every dequeue is fetched by `<session>.run`.

    A dequeue counts as fetched when it stands in the arguments of a `.run(...)` call, or is
    assigned to names that are only ever loaded there. A queue never dequeued in this module is
    not claimed (its consumer may be elsewhere).
    """
    collector = _Collector({id(call): call for call in constructors})
    cstutil.walk(module, collector)
    inside_runs = Counter()
    fetched_calls = set()
    for run in collector.runs:
        for arg in run.args:
            inside_runs.update(cstutil.name_uses(arg.value).loads)
            fetched_calls.update(id(n) for n in cstutil.calls_of(arg.value))
    loads = Counter(cstutil.name_uses(module).loads)
    verdict: Dict[int, bool] = {}
    for dequeue in collector.dequeues:
        queue = collector.queue_names.get(dotted(dequeue.func.value) or "")
        if queue is None:
            continue
        names = collector.dequeued_into.get(id(dequeue), [])
        fetched = id(dequeue) in fetched_calls or (
            bool(names) and all(loads[n] and loads[n] == inside_runs[n] for n in names))
        verdict[queue] = verdict.get(queue, True) and fetched
    return {queue for queue, fetched in verdict.items() if fetched}
