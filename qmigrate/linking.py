"""Link tower loops to the pipeline they consume, across the modules migrated together.

`train.py` calls `cifar10.distorted_inputs()`, which calls `cifar10_input.distorted_inputs(...)`,
whose pipeline was migrated: the pipeline function takes a shard, the functions in between pass
it on, and the tower loop asks each tower's shard. Anything that cannot be followed is reported.

Linking reads module summaries only (summary.py), never a tree: each name is resolved once, module
names go to paths through a dict, and "does this call lead to a pipeline" is memoised, so a run
costs time in proportion to the calls in the modules it reaches.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from qmigrate.names import ImportMap
from qmigrate.program import ModuleIndex
from qmigrate.summary import ConsumerSummary, FunctionSummary, ModuleSummary, functions_by_name

MAX_DEPTH = 6

Function = Tuple[str, str]  # (path, top-level function name)


@dataclass
class LinkPlan:
    """What linking asks of one module: picklable, applied by a worker that parses it again.

    Consumers are named by their index in `towers.find_consumers` of the module.
    """

    strategy: str = "shard"
    shard_functions: Set[str] = field(default_factory=set)  # pipeline functions that take a shard
    passthrough: Dict[str, str] = field(default_factory=dict)  # function -> callee it passes the shard on to
    consumers: List[int] = field(default_factory=list)  # tower inputs moved into the towers
    reasons: Dict[int, str] = field(default_factory=dict)  # prefetch consumer -> why its loop stays
    # (consumer, rule code, whether --unsafe can shard its loop) to report
    findings: List[Tuple[int, str, bool]] = field(default_factory=list)

    @property
    def edits(self) -> bool:
        return bool(self.shard_functions or self.passthrough or self.consumers)


class Linker:
    """Links over `summaries` (path -> summary; None: the file cannot take part).

    `paths`: every readable Python file of the set, in the order found; a module name resolves to
    the file beside the importer, else to the first whose path ends like the module's. A path the
    link reaches that has no entry in `summaries` is collected in `missing` (and treated as absent):
    the caller summarises those and links again.
    """

    def __init__(self, paths: List[str], summaries: Dict[str, Optional[ModuleSummary]]):
        self.summaries = summaries
        self.missing: Set[str] = set()
        self._index = ModuleIndex(paths)
        self._modules: Dict[str, Optional[Tuple[ImportMap, Dict[str, FunctionSummary]]]] = {}
        self._resolved: Dict[Tuple[str, str], Optional[Function]] = {}
        self._reaches: Dict[Tuple[Function, int], bool] = {}

    def chain(self, path: str, consumer: ConsumerSummary):
        """(links from the consumer's call to the pipeline function, None) or (None, why not)."""
        return self._chain(path, consumer.callee)

    @staticmethod
    def add_edits(plans: Dict[str, LinkPlan], path: str, consumer: ConsumerSummary, chain,
                  strategy: str) -> Optional[str]:
        """Record what linking `consumer` to its pipeline asks of each module on the way.

        Returns why not (nothing recorded) when a module on the way already serves another strategy.
        """
        paths = [path] + [link_path for (link_path, _), _ in chain]
        if any(p in plans and plans[p].edits and plans[p].strategy != strategy for p in paths):
            return "its input is shared with towers that use another strategy"
        for p in paths:
            plan = plans.setdefault(p, LinkPlan(strategy=strategy))
            if not plan.edits:
                plan.strategy = strategy
        plans[path].consumers.append(consumer.index)
        for (link_path, function), callee in chain[:-1]:
            plans[link_path].passthrough[function] = callee
        (last_path, last_function), _ = chain[-1]
        plans[last_path].shard_functions.add(last_function)
        return None

    def _chain(self, path: str, callee: str):
        """[((path, function), callee it passes the shard to)...], ending at the pipeline function."""
        chain = []
        current = self.resolve(path, callee)
        while current is not None and len(chain) < MAX_DEPTH:
            function_path, function = current
            count = self._function(*current).pipelines
            if count == 1:
                chain.append((current, None))
                return chain, None
            if count > 1:
                return None, "%s() builds %d pipelines; qmigrate cannot tell which one the towers use" % (
                    function, count)
            inner = self._single_inner_call(function_path, function)
            if inner is None:
                return None, ("%s() neither builds a migrated pipeline nor passes on exactly one call that does"
                              % function)
            chain.append((current, inner))
            current = self.resolve(function_path, inner)
        if current is None:
            return None, "`%s` is not a function of the files migrated together" % callee
        return None, "the call chain from `%s` is too deep" % callee

    def _single_inner_call(self, path: str, function: str) -> Optional[str]:
        linked = [name for name in self._function(path, function).calls if self._leads_to_pipeline(path, name)]
        return linked[0] if len(linked) == 1 else None

    def _leads_to_pipeline(self, path: str, callee: str, depth: int = 0) -> bool:
        target = self.resolve(path, callee)
        if target is None or depth > MAX_DEPTH:
            return False
        key = (target, depth)
        if key not in self._reaches:
            function = self._function(*target)
            self._reaches[key] = bool(function.pipelines) or any(
                self._leads_to_pipeline(target[0], name, depth + 1) for name in function.calls)
        return self._reaches[key]

    def resolve(self, path: str, callee: str) -> Optional[Function]:
        """The (path, function) a dotted call name in `path` refers to, within the set."""
        key = (path, callee)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(path, callee)
        return self._resolved[key]

    def _resolve(self, path: str, callee: str) -> Optional[Function]:
        module = self._module(path)
        if module is None:
            return None
        if "." not in callee:
            return (path, callee) if callee in module[1] else None
        head, _, rest = callee.rpartition(".")
        module_name = module[0].resolve_dotted(head)
        if module_name is None or "." in rest:
            return None
        target = self._index.module_file(path, module_name)
        if target is None:
            return None
        found = self._module(target)
        return (target, rest) if found is not None and rest in found[1] else None


    def _module(self, path: str):
        """(import map, top-level functions by name) of a module of the set, or None."""
        if path not in self._modules:
            if path not in self.summaries:
                self.missing.add(path)
                return None  # not cached: known once summarised
            summary = self.summaries[path]
            self._modules[path] = None if summary is None else (
                ImportMap.from_aliases(summary.imports), functions_by_name(summary))
        return self._modules[path]

    def _function(self, path: str, name: str) -> FunctionSummary:
        return self._module(path)[1][name]
