"""Records kept on the object by a guarded block, batched by every call of the method.

A model built tower by tower often opens its input once, in the first tower's call, and batches
in every call:

    def build_tower(self, index):
        if index == 0:
            queue = tf.train.string_input_producer(self.files)
            self.clean, self.noisy = read_pair(queue)
        clean, noisy = tf.train.shuffle_batch([self.clean, self.noisy], ...)

Each call's batching queue draws its records from the one reader: every record reaches one batch
of one call. A dataset iterator kept on the object does the same: the guarded block makes the
dataset (the records, their batching) and keeps its iterator, and each call takes the next batch:

        if index == 0:
            ...dataset chain...
            self.input_iterator = dataset.make_one_shot_iterator()
        clean, noisy = self.input_iterator.get_next()

This module proposes that rewrite in two halves around the engine's own: `sink` moves the batching
into the guarded block (records on plain names, the block then holds the whole chain) and leaves
`clean, noisy = self.input_iterator` where it was; `finish` turns the migrated chain's
`... = dataset.make_one_shot_iterator().get_next()` into the kept iterator, and the statement left
behind into its `get_next()`. The engine keeps the rewrite only where the chain is migrated.

Contract (what makes it meaning-preserving):
- `self.a, self.b = f(...)` is a statement of an `if` block (no `else`) of the method's body, after
  a producer in that block that repeats forever (no `num_epochs`): there is no epoch end, at which
  each call's queue would drop its own partial batch and one dataset only one;
- the first later statement of the method's body to name those attributes is `t = batch([self.a,
  self.b], ...)` (batch or shuffle_batch) batching exactly them; the batching moves above the
  statements between, so those are simple statements that bind no name it reads, name no
  attribute it reads and call no method of the object;
- nothing else in the module names `.a` or `.b` (their only store and load are these moves': a
  subclass overriding the method with the same shape moves with it, or neither moves), no
  getattr/setattr/hasattr/delattr names them, and no other module of the run mentions them (checked by the run:
  `FileAnalysis.record_attributes`); code outside the run does not know the names of the records
  a model keeps; the name of the iterator attribute is named nowhere in the module.
When the guard is false at a call before it was ever true, both programs fail on the attribute.
"""
import functools
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap
from qmigrate.rules import BATCHERS, PRODUCERS, rule_for


@dataclass(frozen=True)
class Guarded:
    method: cst.FunctionDef
    guard: cst.If
    records: cst.BaseStatement  # `self.a, self.b = f(...)` in the guarded block
    batch: cst.BaseStatement  # `t = batch([self.a, self.b], ...)` after the guard
    attrs: Tuple[str, ...]
    names: Tuple[str, ...]  # the records' local names in the guarded block
    iterator: str  # the attribute that keeps the iterator


def find(module: cst.Module, imports: ImportMap) -> List[Guarded]:
    """The guarded records of the module's classes that the contract allows moving."""
    if not any(isinstance(stmt, cst.ClassDef) for stmt in module.body):
        return []
    # Counting attributes walks the whole module: done on the first call, once a candidate is found.
    counts = functools.lru_cache(maxsize=None)(lambda: _attribute_counts(module))
    found = []
    taken = set()
    for cls in module.body:
        if not (isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)):
            continue
        for method in cls.body.body:
            if not (isinstance(method, cst.FunctionDef) and isinstance(method.body, cst.IndentedBlock)
                    and method.params.params and not method.decorators):
                continue
            self_name = method.params.params[0].name.value
            body = method.body.body
            for index, guard in enumerate(body):
                candidate = _candidate(method, self_name, body, index, imports, counts, taken)
                if candidate is not None:
                    found.append(candidate)
                    taken.add(candidate.iterator)
    # Every `.a` of the module is a store or load of these moves (a subclass that overrides the
    # method with the same shape moves with it); no getattr(x, 'a') may reach it.
    by_name = {arg.value.evaluated_value for call in cstutil.calls_of(module)
               if isinstance(call.func, cst.Name) and call.func.value in ("getattr", "setattr", "hasattr", "delattr")
               for arg in call.args if isinstance(arg.value, cst.SimpleString)}
    if not found:
        return []
    stores = cstutil.name_uses(module).stores
    groups: Dict[str, int] = {}
    for move in found:
        for attr in move.attrs:
            groups[attr] = groups.get(attr, 0) + 1
    return [move for move in found if all(
        counts().get(attr, 0) == 2 * groups[attr] and attr not in stores and attr not in by_name
        for attr in move.attrs)]


def together(moves: List[Guarded], kept: List[Guarded]) -> List[Guarded]:
    """The kept moves whose attributes' other moves are all kept too (they share the attribute)."""
    ids = {id(move) for move in kept}
    by_attr: Dict[str, List[Guarded]] = {}
    for move in moves:
        for attr in move.attrs:
            by_attr.setdefault(attr, []).append(move)
    return [move for move in kept if all(id(other) in ids for attr in move.attrs for other in by_attr[attr])]


def _candidate(method, self_name, body, index, imports, counts, taken) -> Optional[Guarded]:
    guard = body[index]
    if not (isinstance(guard, cst.If) and guard.orelse is None and isinstance(guard.body, cst.IndentedBlock)):
        return None
    inner = guard.body.body
    producer_seen = False
    for stmt in inner:
        assign = cstutil.single_assign(stmt)
        if not assign or not isinstance(assign[1], cst.Call):
            continue
        rule = rule_for(imports.resolve(assign[1].func))
        if rule in PRODUCERS and isinstance(assign[0], cst.Name):
            epochs = rule.bind(assign[1]).get("num_epochs")
            producer_seen = epochs is None or (isinstance(epochs, cst.Name) and epochs.value == "None")
            continue
        attrs = _self_attributes(assign[0], self_name)
        if not producer_seen or not attrs or len(set(attrs)) != len(attrs):
            continue
        batch = _batch_after(body, index, attrs, self_name, imports)
        if batch is None:
            return None
        used = cstutil.name_uses(method)
        names = tuple(attr if attr not in used.loads and attr not in used.stores else attr + "_record"
                      for attr in attrs)
        if any(name in used.loads or name in used.stores for name in names):
            return None
        iterator = _fresh_attribute("input_iterator", counts(), taken)
        return Guarded(method, guard, stmt, batch, attrs, names, iterator)
    return None


def _self_attributes(target, self_name: str) -> Optional[List[str]]:
    elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
    attrs = []
    for element in elements:
        if not (isinstance(element, cst.Attribute) and isinstance(element.value, cst.Name)
                and element.value.value == self_name):
            return None
        attrs.append(element.attr.value)
    return attrs


def _batch_after(body, index, attrs, self_name, imports) -> Optional[cst.BaseStatement]:
    """The first later statement of the body naming the attributes, when it batches exactly them
    and the statements before it can run after it (the batching moves above them): simple ones
    that bind nothing it reads and call no method of the object."""
    between = []
    for stmt in body[index + 1:]:
        named = {node.attr.value for node in cstutil.nodes_of(stmt, (cst.Attribute,))}
        if not named & set(attrs):
            between.append(stmt)
            continue
        if not _may_follow(between, stmt, self_name):
            return None
        assign = cstutil.single_assign(stmt) if isinstance(stmt, cst.SimpleStatementLine) else None
        if not (assign and isinstance(assign[1], cst.Call)
                and rule_for(imports.resolve(assign[1].func)) in BATCHERS):
            return None
        tensors = _tensors_arg(assign[1])
        if not isinstance(tensors, (cst.List, cst.Tuple)):
            return None
        listed = _self_attributes(tensors, self_name)
        if listed is None or sorted(listed) != sorted(attrs):
            return None
        return stmt
    return None


def _may_follow(between, batch, self_name: str) -> bool:
    """Whether `between` (statements before `batch`) may run after it instead."""
    reads = set(cstutil.name_uses(batch).loads)
    read_attrs = {node.attr.value for node in cstutil.nodes_of(batch, (cst.Attribute,))}
    for stmt in between:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        uses = cstutil.name_uses(stmt)
        if reads & (set(uses.stores) | set(uses.mutated)):
            return False
        if {node.attr.value for node in cstutil.nodes_of(stmt, (cst.Attribute,))} & read_attrs:
            return False  # `self.batch_size = 64` between: the batching reads it
        if any(isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
               and call.func.value.value == self_name for call in cstutil.calls_of(stmt)):
            return False  # a method of the object may change what the batching reads
    return True


def _tensors_arg(call: cst.Call) -> Optional[cst.BaseExpression]:
    for position, arg in enumerate(call.args):
        if (arg.keyword is None and position == 0) or (arg.keyword is not None and arg.keyword.value == "tensors"):
            return arg.value
    return None


def _attribute_counts(module: cst.Module) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for node in cstutil.nodes_of(module, (cst.Attribute,)):
        counts[node.attr.value] = counts.get(node.attr.value, 0) + 1
    for name in cstutil.name_uses(module).loads:
        counts[name] = counts.get(name, 0) + 1
    return counts


def _fresh_attribute(preferred: str, counts: Dict[str, int], taken) -> str:
    name, number = preferred, 1
    while name in counts or name in taken:
        number += 1
        name = "%s_%d" % (preferred, number)
    return name


class _Sinker(cst.CSTTransformer):
    def __init__(self, moves: List[Guarded]):
        self.by_guard = {id(g.guard): g for g in moves}
        self.by_records = {id(g.records): g for g in moves}
        self.by_batch = {id(g.batch): g for g in moves}
        self.moved: Dict[int, cst.Call] = {}  # id(move) -> the batching call as it stands in the new module

    def leave_SimpleStatementLine(self, original, updated):
        move = self.by_records.get(id(original))
        if move is not None:
            assign = updated.body[0]
            target = assign.targets[0].target
            names = [cst.Name(name) for name in move.names]
            new_target = target.with_changes(elements=[
                e.with_changes(value=n) for e, n in zip(target.elements, names)]) if isinstance(
                target, (cst.Tuple, cst.List)) else names[0]
            return updated.with_changes(body=[assign.with_changes(
                targets=[assign.targets[0].with_changes(target=new_target)])])
        move = self.by_batch.get(id(original))
        if move is not None:
            self_name = move.method.params.params[0].name.value
            assign = updated.body[0]
            held = cst.Attribute(cst.Name(self_name), cst.Name(move.iterator))
            return updated.with_changes(body=[assign.with_changes(value=held)])
        return updated

    def leave_If(self, original, updated):
        move = self.by_guard.get(id(original))
        if move is None:
            return updated
        assign = move.batch.body[0]
        call = assign.value
        locals_by_attr = dict(zip(move.attrs, move.names))
        args = []
        for position, arg in enumerate(call.args):
            if (arg.keyword is None and position == 0) or (arg.keyword is not None and arg.keyword.value == "tensors"):
                value = arg.value
                arg = arg.with_changes(value=value.with_changes(elements=[
                    e.with_changes(value=cst.Name(locals_by_attr[e.value.attr.value])) for e in value.elements]))
            args.append(arg)
        new_call = call.with_changes(args=args)
        moved = move.batch.with_changes(body=[assign.with_changes(value=new_call)], leading_lines=[])
        self.moved[id(move)] = new_call
        return updated.with_changes(body=updated.body.with_changes(body=list(updated.body.body) + [moved]))


def sink(module: cst.Module, moves: List[Guarded]) -> Tuple[cst.Module, List[cst.Call]]:
    """(the module with each batching moved into its guarded block, the moved batching calls as they
    stand in it, in the order of `moves`)."""
    sinker = _Sinker(moves)
    new = module.visit(sinker)
    return new, [sinker.moved[id(move)] for move in moves]


class _Finisher(cst.CSTTransformer):
    """The migrated chain's last statement keeps the iterator; the statement left behind takes the
    next batch from it."""

    def __init__(self, moves: List[Guarded]):
        self.iterators = {move.iterator for move in moves}
        self.done = set()
        self.failed = False

    def leave_FunctionDef(self, original, updated):
        if not isinstance(updated.body, cst.IndentedBlock):
            return updated
        body = list(updated.body.body)
        for index, stmt in enumerate(body):
            iterator = self._placeholder(stmt)
            if iterator is None:
                continue
            guard = next((body[i] for i in range(index - 1, -1, -1) if isinstance(body[i], cst.If)), None)
            found = self._get_next(guard, stmt) if guard is not None else None
            if found is None:
                self.failed = True
                continue
            last, value, made = found
            held = cst.Attribute(stmt.body[0].value.value, cst.Name(iterator))  # `self.<iterator>`
            keep = last.with_changes(body=[cst.Assign([cst.AssignTarget(held)], made)])
            inner = [keep if s is last else s for s in guard.body.body]
            body[body.index(guard)] = guard.with_changes(body=guard.body.with_changes(body=inner))
            taken = cstutil.replace_node(value, made, held) if made is not value else held
            body[index] = stmt.with_changes(body=[stmt.body[0].with_changes(value=taken)])
            self.done.add(iterator)
        return updated.with_changes(body=updated.body.with_changes(body=body))

    def _placeholder(self, stmt) -> Optional[str]:
        assign = cstutil.single_assign(stmt) if isinstance(stmt, cst.SimpleStatementLine) else None
        if assign and isinstance(assign[1], cst.Attribute) and assign[1].attr.value in self.iterators:
            return assign[1].attr.value
        return None

    def _get_next(self, guard: cst.If, placeholder):
        """(the guarded block's statement `t = <made>.get_next()` (or `list(...)` of it) with the same
        targets as the placeholder, its value, the iterator expression `<made>`)."""
        wanted = cst.Module([]).code_for_node(placeholder.body[0].targets[0].target)
        for stmt in reversed(guard.body.body):
            assign = cstutil.single_assign(stmt) if isinstance(stmt, cst.SimpleStatementLine) else None
            if not assign or cst.Module([]).code_for_node(assign[0]) != wanted:
                continue
            value = assign[1]
            call = value.args[0].value if (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                                           and value.func.value == "list" and len(value.args) == 1) else value
            if (cstutil.plain_get_next(call) and isinstance(call.func.value, cst.Call)
                    and isinstance(call.func.value.func, cst.Attribute)
                    and call.func.value.func.attr.value == "make_one_shot_iterator"):
                return stmt, value, call.func.value
            return None
        return None


def finish(module: cst.Module, moves: List[Guarded]) -> Optional[cst.Module]:
    """The migrated module with each move's iterator kept on the object; None when a migrated chain
    does not end as expected (the move is then not kept)."""
    finisher = _Finisher(moves)
    new = module.visit(finisher)
    if finisher.failed or finisher.done != {move.iterator for move in moves}:
        return None
    return new
