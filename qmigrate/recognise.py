"""Recognise queue pipelines in one block of statements and link them into pipeline models.

A pipeline here is the chain, in one block, of
`q = <producer>(files)` → `r = <Reader>()` → `key, value = r.read(q)` → per-record statements →
`x = <batching>([tensors], ...)` (or `return <batching>(...)`). Whatever breaks the chain or
cannot be proven safe becomes a Failure that names the reason; nothing is guessed.
"""
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.model import Pipeline, RecordFunction
from qmigrate.names import ImportMap
from qmigrate.rules import BATCHERS, PRODUCERS, READERS, rule_for
from qmigrate.rules.base import Unsupported


@dataclass
class Match:
    """A recognised pipeline: where its statements are in the block, and what it means."""

    producer_index: int
    reader_index: int
    read_index: int
    record_indices: Tuple[int, ...]
    batch_index: int
    pipeline: Pipeline
    element_kind: str  # "single" | "tuple" | "dict": what get_next() must give back
    calls: Tuple[cst.Call, ...]  # the producer, reader and batching calls this rewrite removes


@dataclass
class Failure:
    """Calls that form (part of) a pipeline which is left as it is, and why."""

    calls: Tuple[cst.Call, ...]
    reason: str


@dataclass
class BlockResult:
    matches: List[Match] = field(default_factory=list)
    failures: List[Failure] = field(default_factory=list)


class NamePool:
    """Fresh names for generated functions and variables, never clashing with the module's."""

    def __init__(self, used: Set[str]):
        self.used = set(used)

    def fresh(self, preferred: str) -> str:
        name, n = preferred, 2
        while name in self.used:
            name, n = "%s_%d" % (preferred, n), n + 1
        self.used.add(name)
        return name


def _call_with_rule(expr: Optional[cst.BaseExpression], imports: ImportMap, family) -> Optional[Tuple[type, cst.Call]]:
    if isinstance(expr, cst.Call):
        rule = rule_for(imports.resolve(expr.func))
        if rule in family:
            return rule, expr
    return None


class _CallFinder(cst.CSTVisitor):
    def __init__(self, imports: ImportMap, family):
        self.imports, self.family, self.found = imports, family, False

    def visit_Call(self, node: cst.Call) -> None:
        if rule_for(self.imports.resolve(node.func)) in self.family:
            self.found = True


def _contains_call(node: cst.CSTNode, imports: ImportMap, family) -> bool:
    finder = _CallFinder(imports, family)
    node.visit(finder)
    return finder.found


def _read_call(value: cst.BaseExpression) -> Optional[Tuple[str, str]]:
    """(reader variable, queue variable) for `reader.read(queue)`."""
    if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "read" and isinstance(value.func.value, cst.Name)
            and len(value.args) == 1 and value.args[0].keyword is None
            and isinstance(value.args[0].value, cst.Name)):
        return value.func.value.value, value.args[0].value.value
    return None


def _target_name(target: cst.BaseExpression) -> Optional[str]:
    return target.value if isinstance(target, cst.Name) else None


class _BlockRecogniser:
    def __init__(self, body: Sequence[cst.BaseStatement], scope: cst.CSTNode, imports: ImportMap,
                 names: NamePool, source_of: Callable[[cst.CSTNode], str]):
        self.body = body
        self.imports = imports
        self.names = names
        self.source_of = source_of
        self.scope_loads = Counter(cstutil.name_uses(scope).loads)
        self.uses = [cstutil.name_uses(stmt) for stmt in body]

    def run(self) -> BlockResult:
        result = BlockResult()
        producers: Dict[str, Tuple[int, type, cst.Call]] = {}
        readers: Dict[str, Tuple[int, type, cst.Call]] = {}
        for index, stmt in enumerate(self.body):
            assign = cstutil.single_assign(stmt)
            if assign is None:
                continue
            target, value = assign
            name = _target_name(target)
            found = _call_with_rule(value, self.imports, PRODUCERS)
            if found and name:
                producers[name] = (index,) + found
                continue
            found = _call_with_rule(value, self.imports, READERS)
            if found and name:
                readers[name] = (index,) + found
                continue
            read = _read_call(value)
            if read and read[0] in readers and read[1] in producers:
                try:
                    result.matches.append(self._link(producers[read[1]], readers[read[0]], index, target))
                except _Broken as broken:
                    result.failures.append(Failure(broken.calls, str(broken)))
        return result

    def _link(self, producer, reader, read_index: int, read_target: cst.BaseExpression) -> Match:
        producer_index, producer_rule, producer_call = producer
        reader_index, reader_rule, reader_call = reader
        calls = (producer_call, reader_call)

        key, value = self._read_targets(read_target, calls)
        tainted = {value} | ({key} if key else set())
        record_indices: List[int] = []
        batch = None
        for index in range(read_index + 1, len(self.body)):
            uses = self.uses[index]
            reads_record = bool(tainted & set(uses.loads))
            found = _call_with_rule(cstutil.statement_value(self.body[index]), self.imports, BATCHERS)
            if found and reads_record:
                batch = (index,) + found
                break
            if reads_record:
                if _contains_call(self.body[index], self.imports, BATCHERS):
                    raise _Broken(calls, "the batching call is part of a larger statement; assign its result "
                                  "to names first")
                if uses.control:
                    raise _Broken(calls, "the per-record code contains `%s`" % sorted(uses.control)[0])
                record_indices.append(index)
                tainted |= uses.stores
            elif tainted & uses.stores:
                raise _Broken(calls, "a statement rebinds `%s`, a per-record tensor, without using the record"
                              % sorted(tainted & uses.stores)[0])
        if batch is None:
            raise _Broken(calls, "its records are not batched by tf.train.batch/shuffle_batch in the same block")
        batch_index, batch_rule, batch_call = batch
        calls += (batch_call,)

        self._check_isolated(producer_index, reader_index, read_index, record_indices, batch_index, tainted, calls)
        try:
            bound = batch_rule.bind(batch_call)
            tensors = bound.get("tensors")
            element_kind, returns = self._element(tensors, calls)
            file_source = producer_rule.model(producer_rule.bind(producer_call), self.source_of, self.imports.resolve)
            record_reader = reader_rule.model(reader_rule.bind(reader_call), self.source_of, self.imports.resolve)
            batching = batch_rule.model(bound, self.source_of, self.imports.resolve)
        except Unsupported as unsupported:
            raise _Broken(calls, str(unsupported))
        if key and record_reader.kind != "whole_file":
            raise _Broken(calls, "the per-record code uses the reader's key `%s`, which the %s dataset does not give"
                          % (key, record_reader.kind))

        if record_indices or returns != value:
            params = (key, value) if key else (value,)
            function = RecordFunction(self.names.fresh("parse_record"), params, returns)
        else:
            function = None
        pipeline = Pipeline(file_source, record_reader, function, batching,
                            dataset_name=self.names.fresh("dataset"),
                            file_name_param=self._fresh_local("filename", file_source.files, record_reader))
        return Match(producer_index, reader_index, read_index, tuple(record_indices), batch_index,
                     pipeline, element_kind, calls)

    def _read_targets(self, target: cst.BaseExpression, calls) -> Tuple[Optional[str], str]:
        if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
            raise _Broken(calls, "the result of reader.read() is not unpacked into `key, value`")
        key, value = (_target_name(element.value) for element in target.elements)
        if value is None or key is None:
            raise _Broken(calls, "reader.read() is unpacked into something other than two plain names")
        if key == "_" or self.scope_loads[key] == 0:
            key = None
        return key, value

    def _check_isolated(self, producer_index, reader_index, read_index, record_indices, batch_index, tainted, calls):
        """Prove that moving the chain cannot change what any other code sees."""
        chain = {producer_index, reader_index, read_index, batch_index} | set(record_indices)
        producer_target = cstutil.single_assign(self.body[producer_index])[0].value
        reader_target = cstutil.single_assign(self.body[reader_index])[0].value
        for queue_name in (producer_target, reader_target):
            if self.scope_loads[queue_name] != 1:
                raise _Broken(calls, "`%s` is used beyond reader.read(), by code qmigrate cannot rewrite" % queue_name)
        inside = Counter()
        for index in chain:
            inside.update(self.uses[index].loads)
        for name in sorted(tainted):
            if self.scope_loads[name] > inside[name]:
                raise _Broken(calls, "the per-record tensor `%s` is also used outside the record path" % name)
        for index in record_indices:
            escaped = self.uses[index].mutated - tainted
            if escaped:
                raise _Broken(calls, "the per-record code stores into `%s`, which lives outside the record path"
                              % sorted(escaped)[0])
        # The map function is traced where the batch was built: names it reads must not change
        # in between, nor may the producer's and reader's arguments.
        late_reads = set()
        for index in record_indices + [producer_index, reader_index]:
            late_reads |= set(self.uses[index].loads)
        for index in range(producer_index + 1, batch_index):
            if index in chain:
                continue
            rebound = (late_reads & self.uses[index].stores) - tainted
            if rebound:
                raise _Broken(calls, "`%s` is reassigned between the queue and the batch, so the moved code "
                              "would see another value" % sorted(rebound)[0])

    def _element(self, tensors: Optional[cst.BaseExpression], calls) -> Tuple[str, str]:
        """The structure get_next() must return, and the map function's return expression."""
        if isinstance(tensors, cst.Dict):
            return "dict", self.source_of(tensors)
        if isinstance(tensors, (cst.List, cst.Tuple)) and tensors.elements:
            if any(isinstance(element, cst.StarredElement) for element in tensors.elements):
                raise _Broken(calls, "the batched tensors are built with *unpacking")
            sources = [self.source_of(element.value) for element in tensors.elements]
            if len(sources) == 1:
                # tf.train.batch([t]) returns the tensor itself, not a list of one.
                return "single", sources[0]
            return "tuple", ", ".join(sources)
        raise _Broken(calls, "the batched tensors are not a literal list, tuple or dict")

    def _fresh_local(self, preferred: str, *texts) -> str:
        """A lambda parameter name that shadows nothing the lambda's body or its scope reads."""
        name, n = preferred, 2
        while name in self.scope_loads or any(re.search(r"\b%s\b" % name, str(text)) for text in texts):
            name, n = "%s_%d" % (preferred, n), n + 1
        return name


class _Broken(Exception):
    def __init__(self, calls, reason: str):
        super().__init__(reason)
        self.calls = calls


def recognise_block(body, scope, imports, names, source_of) -> BlockResult:
    """All pipelines whose chain lies in `body` (a list of statements of `scope`)."""
    return _BlockRecogniser(body, scope, imports, names, source_of).run()
