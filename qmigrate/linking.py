"""Link tower loops to the pipeline they consume, across the modules migrated together.

`train.py` calls `cifar10.distorted_inputs()`, which calls `cifar10_input.distorted_inputs(...)`,
whose pipeline was migrated: the pipeline function takes a shard, the functions in between pass
it on, and the tower loop asks each tower's shard. Anything that cannot be followed is reported.
"""
import os
from typing import Callable, Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import cstutil, towers
from qmigrate.names import ImportMap, dotted

MAX_DEPTH = 6

Function = Tuple[str, str]  # (path, top-level function name)


class Linker:
    """`modules(path)` gives a parsed module of the set (or None); `pipelines(path)` its pipeline functions."""

    def __init__(self, paths: List[str], module_of: Callable[[str], Optional[cst.Module]],
                 pipelines_of: Callable[[str], Dict[str, int]]):
        self.paths = paths
        self.module_of = module_of
        self.pipelines_of = pipelines_of

    def chain(self, path: str, consumer: towers.TowerConsumer):
        """(links from the consumer's call to the pipeline function, None) or (None, why not)."""
        return self._chain(path, consumer.callee)

    @staticmethod
    def add_edits(edits: Dict[str, towers.TowerEdits], path: str, consumer: towers.TowerConsumer, chain,
                  strategy: str) -> Optional[str]:
        """Record what linking `consumer` to its pipeline asks of each module on the way.

        Returns why not (nothing recorded) when a module on the way already serves another strategy.
        """
        paths = [path] + [link_path for (link_path, _), _ in chain]
        if any(p in edits and edits[p].strategy != strategy for p in paths):
            return "its input is shared with towers that use another strategy"
        for p in paths:
            edits.setdefault(p, towers.TowerEdits(strategy=strategy))
        edits[path].consumers.append(consumer)
        for (link_path, function), callee in chain[:-1]:
            edits[link_path].passthrough[function] = callee
        (last_path, last_function), _ = chain[-1]
        edits[last_path].shard_functions.add(last_function)
        return None

    def _chain(self, path: str, callee: str):
        """[((path, function), callee it passes the shard to)...], ending at the pipeline function."""
        chain = []
        current = self.resolve(path, callee)
        while current is not None and len(chain) < MAX_DEPTH:
            function_path, function = current
            count = self.pipelines_of(function_path).get(function, 0)
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
        definition = self._function(path, function)
        if definition is None:
            return None
        inner = [dotted(call.func) for call in cstutil.calls_of(definition.body)]
        linked = [name for name in inner if name and self._leads_to_pipeline(path, name)]
        return linked[0] if len(linked) == 1 else None

    def _leads_to_pipeline(self, path: str, callee: str, depth: int = 0) -> bool:
        target = self.resolve(path, callee)
        if target is None or depth > MAX_DEPTH:
            return False
        if self.pipelines_of(target[0]).get(target[1], 0):
            return True
        definition = self._function(*target)
        return any(self._leads_to_pipeline(target[0], dotted(call.func), depth + 1)
                   for call in cstutil.calls_of(definition.body) if dotted(call.func))

    def resolve(self, path: str, callee: str) -> Optional[Function]:
        """The (path, function) a dotted call name in `path` refers to, within the set."""
        module = self.module_of(path)
        if module is None:
            return None
        if "." not in callee:
            return (path, callee) if self._function(path, callee) is not None else None
        head, _, rest = callee.rpartition(".")
        module_name = ImportMap(module).resolve_dotted(head)
        if module_name is None or "." in rest:
            return None
        target = self._module_path(path, module_name)
        if target is None or self._function(target, rest) is None:
            return None
        return target, rest

    def _module_path(self, importer: str, module_name: str) -> Optional[str]:
        relative = module_name.replace(".", os.sep) + ".py"
        beside = os.path.normpath(os.path.join(os.path.dirname(importer), relative))
        candidates = [p for p in self.paths if os.path.normpath(p) == beside]
        candidates += [p for p in self.paths if os.path.normpath(p).endswith(os.sep + relative)]
        return candidates[0] if candidates else None

    def _function(self, path: str, name: str) -> Optional[cst.FunctionDef]:
        module = self.module_of(path)
        for stmt in module.body if module is not None else ():
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                return stmt
        return None
