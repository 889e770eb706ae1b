"""Data bugs in the input code of one module, found whether or not anything is rewritten:
producers kept paired by a shared seed (QM903), batches split across towers that do not divide
them (QM904), towers fed through placeholders (QM905)."""
from collections import defaultdict
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import blocks, cstutil, towers
from qmigrate.cstutil import calls_of
from qmigrate.names import ImportMap
from qmigrate.rules import BATCHERS, FILTERERS
from qmigrate.rules.findings import BatchNotDivisibleAcrossTowers, PerTowerPlaceholders, ProducersAlignedBySeed
from qmigrate.rules.producers import RangeInputProducer, SliceInputProducer, StringInputProducer

# Producers that shuffle and batching calls, with their parameters in TensorFlow's positional
# order: the rewriting rules' own signatures, and (leading parameters of) input_producer, which
# QM001 reports.
_PRODUCERS = dict({name: rule.signature for rule in (StringInputProducer, SliceInputProducer, RangeInputProducer)
                   for name in rule.names},
                  **{"tensorflow.train.input_producer": ("input_tensor", "element_shape", "num_epochs", "shuffle",
                                                         "seed")})
_BATCHES = {name: rule.signature for rule in BATCHERS + FILTERERS for name in rule.names}


@dataclass(frozen=True)
class Found:
    rule: type
    node: cst.CSTNode
    detail: str  # said after the rule's message


def _argument(call: cst.Call, signature: Tuple[str, ...], name: str) -> Optional[cst.BaseExpression]:
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        if (arg.keyword.value if arg.keyword else signature[position] if position < len(signature) else None) == name:
            return arg.value
    return None


class _Scan(cst.CSTVisitor):
    """Calls of interest by the function (scope) they sit in, and module-level int constants."""

    def __init__(self, imports: ImportMap):
        self.imports = imports
        self.scopes: List[int] = [0]
        self.producers: Dict[int, List[Tuple[str, cst.Call]]] = defaultdict(list)
        self.batches: Dict[Tuple[int, str], cst.Call] = {}  # (scope, name bound to a batch) -> call
        self.splits: List[Tuple[int, cst.Call]] = []
        self.tower_loops: List[cst.For] = []
        self.constants: Dict[str, int] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(id(node))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if len(self.scopes) == 1 and isinstance(target, cst.Name) and isinstance(node.value, cst.Integer):
            self.constants[target.value] = int(node.value.value)
        if isinstance(node.value, cst.Call) and self.imports.resolve(node.value.func) in _BATCHES:
            for name in towers.target_names(target):
                self.batches[(self.scopes[-1], name)] = node.value

    def visit_Call(self, node: cst.Call) -> None:
        name = self.imports.resolve(node.func)
        if name in _PRODUCERS:
            self.producers[self.scopes[-1]].append((name, node))
        elif name == "tensorflow.split":
            self.splits.append((self.scopes[-1], node))

    def visit_For(self, node: cst.For) -> None:
        loop_var, _ = towers.tower_range(node, self.imports)
        if loop_var is None or not isinstance(node.body, cst.IndentedBlock):
            return
        if towers.places_devices(node, self.imports):
            self.tower_loops.append(node)


def worth_scanning(source: bytes, queue_names: List[str]) -> bool:
    """Whether the module can hold any of these findings (a scan costs a walk of the whole tree):
    two producers, a batch and a split, or a placeholder."""
    if sum(1 for name in queue_names if name in _PRODUCERS) >= 2:
        return True
    if b"split" in source and any(name in _BATCHES for name in queue_names):
        return True
    return b"placeholder" in source


def find(module: cst.Module, imports: ImportMap, line_of, wants) -> List[Found]:
    """The findings of the module; `line_of(node)` gives a node's line, `wants(code)` filters rules."""
    scan = _Scan(imports)
    cstutil.walk(module, scan)
    found: List[Found] = []
    code = module.code_for_node
    if wants(ProducersAlignedBySeed.code):
        found += _aligned_producers(scan, code, line_of)
    if wants(BatchNotDivisibleAcrossTowers.code):
        found += _indivisible_splits(scan, imports, code)
    if wants(PerTowerPlaceholders.code):
        found += _placeholders(scan, imports)
    return found


def _aligned_producers(scan: _Scan, code, line_of) -> List[Found]:
    found = []
    for calls in scan.producers.values():
        by_seed: Dict[str, List[cst.Call]] = defaultdict(list)
        for name, call in calls:
            seed = _argument(call, _PRODUCERS[name], "seed")
            shuffle = _argument(call, _PRODUCERS[name], "shuffle")
            if seed is None or (isinstance(shuffle, cst.Name) and shuffle.value == "False"):
                continue
            by_seed[code(seed)].append(call)
        for seed, same in by_seed.items():
            for call in same[1:]:
                if line_of(call) == line_of(same[0]):
                    continue  # copies of one producer in exclusive arms (arm_producers), one statement as written
                found.append(Found(ProducersAlignedBySeed, call, "seed=%s, as the producer on line %d"
                                   % (seed, line_of(same[0]))))
    return found


def _int(node: Optional[cst.BaseExpression], constants: Dict[str, int]) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.Name):
        return constants.get(node.value)
    return None


def _indivisible_splits(scan: _Scan, imports: ImportMap, code) -> List[Found]:
    found = []
    for scope, split in scan.splits:
        signature = ("value", "num_or_size_splits", "axis")
        value = _argument(split, signature, "value")
        if isinstance(value, cst.Subscript):
            value = value.value
        batch = scan.batches.get((scope, value.value)) if isinstance(value, cst.Name) else None
        axis = _argument(split, signature, "axis")
        if batch is None or (axis is not None and _int(axis, {}) != 0):
            continue
        parts = _int(_argument(split, signature, "num_or_size_splits"), scan.constants)
        signature = _BATCHES[imports.resolve(batch.func)]
        size = _int(_argument(batch, signature, "batch_size"), scan.constants)
        smaller = _argument(batch, signature, "allow_smaller_final_batch")
        if parts and size and size % parts:
            found.append(Found(BatchNotDivisibleAcrossTowers, split, "a batch of %d over %d towers fails in "
                               "tf.split" % (size, parts)))
        elif parts != 1 and isinstance(smaller, cst.Name) and smaller.value == "True":
            found.append(Found(BatchNotDivisibleAcrossTowers, split, "allow_smaller_final_batch=True: the last, "
                               "smaller batch need not divide across the towers"))
    return found


def _placeholders(scan: _Scan, imports: ImportMap) -> List[Found]:
    found = []
    for loop in scan.tower_loops:
        for leaf in blocks.flatten(loop.body.body, loop.body.body):
            placeholders = [c for c in calls_of(leaf.original) if imports.resolve(c.func) == "tensorflow.placeholder"]
            if placeholders:
                found.append(Found(PerTowerPlaceholders, placeholders[0], "in the tower loop"))
                break
    return found
