"""Records an object makes in __init__ and batches in another method.

    class ImageReader(object):
        def __init__(self, images, labels, scale):
            self.queue = tf.train.slice_input_producer([images, labels], shuffle=True)
            self.image, self.label = read_and_scale(self.queue, scale)

        def dequeue(self, n):
            image_batch, label_batch = tf.train.batch([self.image, self.label], n)
            return image_batch, label_batch

The records' dataset is built where the queue was, in __init__: the producer's part, the
per-record code as the map function (it reads what __init__ sees, `scale`), and the producer's
epochs; the object keeps it under the queue's attribute, and the batching method continues from
it (shuffles if it shuffled, batches, prefetches, takes the next batch):

        def __init__(self, images, labels, scale):
            def parse_record(*queue):
                image, label = read_and_scale(queue, scale)
                return image, label

            dataset = tf.data.Dataset.from_tensor_slices((images, labels))
            dataset = dataset.shuffle(tf.shape(images, out_type=tf.int64)[0])
            dataset = dataset.map(parse_record)
            dataset = dataset.repeat()
            self.queue = dataset

        def dequeue(self, n):
            dataset = self.queue
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(n))
            ...

The epochs repeat before the batching's shuffle, which then mixes across epoch ends as the
queue did (held_sources.py does the same for file names). Where other code reads the records
themselves (`reader.image`, outside the class), __init__ binds them too, one record per run from
an iterator of their own: `self.image, self.label = dataset.make_one_shot_iterator().get_next()`.

Contract (`find` proposes, `apply` writes only what the engine then proves):
- a top-level class binds `self.<queue> = <producer>(...)` once, in a statement of __init__'s own
  body; the statements right after it that read the queue or what they bound (the run) are
  simple assignments to names and `self` attributes; the attributes they bind (the records) are
  bound once in the class, read there only by one batching statement of another method,
  `targets = tf.train.batch([self.a, self.b], ...)` (or `shuffle_batch`, or `return ...`) of its
  own body, with each record once; the queue is read only by the run; the names the run binds are
  not read after it in __init__; the batching enqueues nothing more (no enqueue_many, padding,
  shapes or condition) and its `num_threads`, which the map in __init__ takes, is a literal;
- the batching method is called, in this module and every other module of the run, only on
  objects made for that call (fresh_receivers), so no two calls shared the queue; neither the
  method nor the queue's attribute is named by other modules (after the first pass:
  `mentioned_attributes`), and other modules naming a record is what makes __init__ bind them;
- the engine migrates, as one block, the class written with the queue and the records as locals
  of __init__ and the method's batching after the run (the `oracle`): every queue call of
  __init__ and the batching then migrate, and nothing outside __init__ changes. That migration's
  checks are those of every chain (stateful captures, graph-only calls, what callers pass for
  the parameters the map function reads); its map function and the stages before the repeat are
  what __init__ gets.
Calls from outside the run cannot be seen.
"""
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import captured_params, cstutil, fresh_receivers, synth
from qmigrate.model import FileSource, Pipeline
from qmigrate.names import ImportMap
from qmigrate.rules import BATCHERS, PRODUCERS, SLICERS, rule_for
from qmigrate.rules.base import Unsupported


@dataclass
class Held:
    """One class of the shape (see the module's contract), as found in the module as written."""

    cls: cst.ClassDef
    init: cst.FunctionDef
    method: cst.FunctionDef
    producer: cst.SimpleStatementLine
    producer_call: cst.Call
    queue: str  # the attribute the producer's result is bound to
    run: List[cst.SimpleStatementLine]
    records: Tuple[str, ...]  # the records' attributes, in the batching's order
    batch: cst.SimpleStatementLine
    batch_call: cst.Call
    batch_rule: type


class Refused(Exception):
    """The class stays as it is; the text says why (a clause for a diagnostic)."""


def worth_looking(source: bytes) -> bool:
    return b"_producer" in source and b"__init__" in source and b"batch" in source


def _self_attr(node: cst.CSTNode, self_name: str) -> Optional[str]:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self_name:
        return node.attr.value
    return None


def _assign(stmt: cst.BaseStatement) -> Optional[cst.Assign]:
    small = cstutil.single_small(stmt)
    return small if isinstance(small, cst.Assign) else None


def _targets(target: cst.BaseExpression, self_name: str) -> Optional[Tuple[List[str], List[str]]]:
    """(names, self attributes) a target binds; None for anything else (a subscript, a star)."""
    if isinstance(target, cst.Name):
        return [target.value], []
    attr = _self_attr(target, self_name)
    if attr is not None:
        return [], [attr]
    if isinstance(target, (cst.Tuple, cst.List)):
        names, attrs = [], []
        for element in target.elements:
            if not isinstance(element, cst.Element):
                return None
            inner = _targets(element.value, self_name)
            if inner is None:
                return None
            names += inner[0]
            attrs += inner[1]
        return names, attrs
    return None


def _reads(stmt: cst.CSTNode, self_name: str, attrs: Set[str], names: Set[str]) -> bool:
    """Whether the statement reads `self.<attr>` of `attrs` or a name of `names` (outside its targets)."""
    value = stmt.body[0].value if _assign(stmt) is not None else stmt
    if names & set(cstutil.name_uses(value).loads):
        return True
    return any(_self_attr(node, self_name) in attrs for node in cstutil.nodes_of(value, cst.Attribute))


def find(module: cst.Module, imports: ImportMap, class_attrs_of) -> List[Held]:
    """The classes of the module in the shape (structure only; `apply` checks the rest).
    `class_attrs_of(method)`: the ClassAttrs of the method's class (ModuleContext.class_attrs)."""
    found = []
    for cls in module.body:
        if not isinstance(cls, cst.ClassDef) or not isinstance(cls.body, cst.IndentedBlock):
            continue
        methods = [stmt for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef)]
        inits = [m for m in methods if m.name.value == "__init__"]
        if len(inits) != 1 or len({m.name.value for m in methods}) != len(methods):
            continue
        held = _in_class(cls, inits[0], methods, imports, class_attrs_of)
        if held is not None:
            found.append(held)
    return found


def _in_class(cls, init, methods, imports, class_attrs_of) -> Optional[Held]:
    if not any(rule_for(imports.resolve(call.func)) in PRODUCERS + SLICERS for call in cstutil.calls_of(init)):
        return None  # no producer in __init__: the class's attributes are not worth working out
    attrs = class_attrs_of(init)
    self_name = attrs.self_name(init) if attrs is not None else None
    if self_name is None or not isinstance(init.body, cst.IndentedBlock):
        return None
    body = list(init.body.body)
    for index, stmt in enumerate(body):
        assign = _assign(stmt)
        if assign is None or len(assign.targets) != 1 or not isinstance(assign.value, cst.Call):
            continue
        queue = _self_attr(assign.targets[0].target, self_name)
        if queue is None or rule_for(imports.resolve(assign.value.func)) not in PRODUCERS + SLICERS:
            continue
        run, names, records = [], set(), []
        for later in body[index + 1:]:
            if not _reads(later, self_name, {queue} | set(records), names):
                break
            bound = _assign(later)
            targets = [_targets(t.target, self_name) for t in bound.targets] if bound is not None else [None]
            if any(t is None for t in targets):
                return None
            for target_names, target_attrs in targets:
                names.update(target_names)
                records += [a for a in target_attrs if a not in records]
            run.append(later)
        if not records:
            return None
        batching = _batching(methods, init, attrs, records, imports)
        if batching is None:
            return None
        method, batch, call, rule, order = batching
        return Held(cls, init, method, stmt, assign.value, queue, run, order, batch, call, rule)
    return None


def _batching(methods, init, attrs, records, imports):
    """(method, statement, call, rule, records in its order) of the one batching of the records."""
    found = []
    for method in methods:
        self_name = attrs.self_name(method)
        if method is init or self_name is None or not isinstance(method.body, cst.IndentedBlock):
            continue
        for stmt in method.body.body:
            value = cstutil.statement_value(stmt)
            if not isinstance(value, cst.Call) or rule_for(imports.resolve(value.func)) not in BATCHERS:
                continue
            tensors = cstutil.argument(value, "tensors", 0)
            if not isinstance(tensors, (cst.List, cst.Tuple)):
                continue
            order = [_self_attr(e.value, self_name) if isinstance(e, cst.Element) else None for e in tensors.elements]
            if sorted(a or "" for a in order) == sorted(records):
                found.append((method, stmt, value, rule_for(imports.resolve(value.func)), tuple(order)))
    return found[0] if len(found) == 1 else None


def _check(held: Held, attrs, tree, mentioned: Dict[str, str]) -> bool:
    """Refused when the class's own uses, or the module's, break the contract; whether __init__
    must bind the records too (code outside the class reads them)."""
    method = held.method.name.value
    for attr in (held.queue,) + held.records:
        uses = attrs.uses.get(attr, [])
        if attr in attrs.class_level or any(use.kind == "store" for use in uses):
            raise Refused("`self.%s` is bound in the class body or changed in place" % attr)
        if len([use for use in uses if use.kind == "bind"]) != 1:
            raise Refused("`self.%s` is bound in several places" % attr)
    if attrs.escapes:
        raise Refused("the object is handed to other code in its own methods (line %d)"
                      % attrs.line_of(attrs.escapes[0][1]))
    in_run = {id(node) for stmt in held.run for node in cstutil.nodes_of(stmt, cst.Attribute)}
    if any(id(use.node) not in in_run for use in attrs.loads(held.queue)):
        raise Refused("`self.%s` is read outside the statements that make the records" % held.queue)
    after = held.init.body.body[held.init.body.body.index(held.run[-1]) + 1:]
    bound = set().union(*(cstutil.name_uses(stmt).stores for stmt in held.run))
    read_after = bound & set().union(set(), *(cstutil.name_uses(stmt).loads for stmt in after))
    if read_after:
        raise Refused("`%s`, made from the records in __init__(), is read after them there" % sorted(read_after)[0])
    for attr in held.records:
        loads = attrs.loads(attr)
        if len(loads) != 1 or loads[0].method is not held.method:
            raise Refused("`self.%s` is read in the class beyond the batching of %s()" % (attr, method))
    if attrs.foreign_count[held.queue] or held.queue in mentioned:
        raise Refused("other code names `.%s`, the queue the migration replaces" % held.queue)
    if method in mentioned:
        raise Refused("%s, not each on an object made for that one call and used for nothing else: two calls "
                      "of %s() on one object shared its records" % (mentioned[method], method))
    # `.dequeue()` of the queue the records are read from is that queue's, not the method's.
    own = [node for stmt in held.run for node in cstutil.nodes_of(stmt, cst.Attribute) if node.attr.value == method]
    if attrs.uses_of(method) > len(own) and not fresh_receivers.each_on_a_new_object(
            tree, method, fresh_receivers.classes_defining(tree, method), {attrs.line_of(node) for node in own}):
        raise Refused("this file calls %s() other than once on each object made for that call and used for "
                      "nothing else (two calls on one object shared its records)" % method)
    return any(attrs.foreign_count[attr] or attr in mentioned for attr in held.records)


@dataclass
class Outcome:
    """What became of one class: `new_class` set when it migrated (then `fixed`: the ids of the
    queue calls of the module as written that it replaced), else `reason`."""

    held: Held
    new_class: Optional[cst.ClassDef] = None
    fixed: Set[int] = field(default_factory=set)
    reason: Optional[str] = None
    keeps_records: bool = False
    captured: Tuple = ()  # the parameters the map function and the batching read (captured_params)


_BATCH = "_held_batch"


def _fresh(base: str, taken: Set[str]) -> str:
    name, number = base, 2
    while name in taken:
        name, number = "%s_%d" % (base, number), number + 1
    taken.add(name)
    return name


class _ToLocals(cst.CSTTransformer):
    """`self.<attr>` -> a local name, for the attributes of `mapping`."""

    def __init__(self, self_name: str, mapping: Dict[str, str]):
        self.self_name, self.mapping = self_name, mapping

    def leave_Attribute(self, original_node, updated_node):
        attr = _self_attr(original_node, self.self_name)
        if attr in self.mapping:
            return cst.Name(self.mapping[attr])
        return updated_node


def _one_block(module: cst.Module, held: Held, self_name: str, locals_of: Dict[str, str]) -> cst.Module:
    """The module with the class's __init__ written as one block: the queue and the records as
    locals, the method's batching (bound to _BATCH) after the records."""
    body = list(held.init.body.body)
    start, end = body.index(held.producer), body.index(held.run[-1]) + 1
    to_locals = _ToLocals(self_name, locals_of)
    batch_self = held.method.params.params[0].name.value
    call = held.batch_call.visit(_ToLocals(batch_self, locals_of))
    batch = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(_BATCH))], call)])
    new_body = body[:start] + [stmt.visit(to_locals) for stmt in body[start:end]] + [batch] + body[end:]
    init = held.init.with_changes(body=held.init.body.with_changes(body=new_body))
    return cstutil.replace_node(module, held.init, init)


def _queue_calls(node: cst.CSTNode, imports: ImportMap) -> List[cst.Call]:
    return [call for call in cstutil.calls_of(node) if rule_for(imports.resolve(call.func)) is not None]


def _method_of(module: cst.Module, cls_name: str, name: str) -> Optional[cst.FunctionDef]:
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == cls_name:
            return next((m for m in stmt.body.body if isinstance(m, cst.FunctionDef) and m.name.value == name), None)
    return None


def _migrated_init(held: Held, oracle_analysis, normalized: cst.Module, imports: ImportMap) -> cst.FunctionDef:
    """The oracle's __init__, when every queue call of it migrated and nothing outside it changed."""
    new = oracle_analysis.new_module
    before = _method_of(normalized, held.cls.name.value, "__init__")
    after = _method_of(new, held.cls.name.value, "__init__")
    if after is None or before is None:
        raise Refused("the class could not be followed as one block")
    left = [call for call in _queue_calls(before, imports) if id(call) not in oracle_analysis.fixed_calls]
    if left:
        why = oracle_analysis.reason_of(left[0])
        raise Refused("its chain, written as one block of __init__(), would stay too: %s" % why if why else
                      "its chain, written as one block of __init__(), does not migrate")
    if _queue_calls(after, imports):
        raise Refused("its chain, written as one block of __init__(), leaves queue code")
    # The imports the migration needs are added to the module as it is written (the engine's own step).
    old_body, new_body = _without_imports(normalized.body), _without_imports(new.body)
    if len(old_body) != len(new_body):
        raise Refused("its chain, written as one block of __init__(), changes code outside __init__()")
    for old_stmt, new_stmt in zip(old_body, new_body):
        if isinstance(old_stmt, cst.ClassDef) and old_stmt.name.value == held.cls.name.value:
            others = [(a, b) for a, b in zip(old_stmt.body.body, new_stmt.body.body)
                      if not (isinstance(a, cst.FunctionDef) and a.name.value == "__init__")]
            changed = len(old_stmt.body.body) != len(new_stmt.body.body) or any(
                normalized.code_for_node(a) != new.code_for_node(b) for a, b in others)
        else:
            changed = normalized.code_for_node(old_stmt) != new.code_for_node(new_stmt)
        if changed:
            raise Refused("its chain, written as one block of __init__(), changes code outside __init__()")
    return after


def _without_imports(body) -> list:
    return [stmt for stmt in body if not (isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body))]


def _split(init: cst.FunctionDef, before: cst.FunctionDef) -> Tuple[int, int, str]:
    """(index of the map stage, index of the _BATCH statement, the dataset's name) in the migrated
    __init__ of the oracle."""
    body = list(init.body.body)
    functions = {stmt.name.value for stmt in body if isinstance(stmt, cst.FunctionDef)} - {
        stmt.name.value for stmt in before.body.body if isinstance(stmt, cst.FunctionDef)}
    maps, consume = [], None
    for index, stmt in enumerate(body):
        assign = _assign(stmt)
        if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            continue
        target, value = assign.targets[0].target.value, assign.value
        if target == _BATCH:
            consume = index
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "map" \
                and isinstance(value.func.value, cst.Name) and value.func.value.value == target and value.args \
                and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value in functions:
            maps.append((index, target))
    if consume is None or len(maps) != 1 or maps[0][0] > consume:
        raise Refused("its chain, written as one block of __init__(), is not a map of the records before the "
                      "batching")
    return maps[0][0], consume, maps[0][1]


def apply(module: cst.Module, imports: ImportMap, attrs_of, tree, mentioned: Dict[str, str],
          kept_captures: Dict[str, str], tf: str, target, oracle: Callable[[cst.Module], object]) -> List[Outcome]:
    """What becomes of each class of the module in the shape (see the module's contract).
    `attrs_of(method)`: ModuleContext.class_attrs; `tree`: the module's stdlib tree; `mentioned`:
    ModuleContext.mentioned_attributes; `kept_captures`: ModuleContext.kept_captures (function ->
    why a caller in another module may pass a parameter it reads a stateful value); `oracle(module)`:
    the engine's analysis of a module."""
    outcomes = []
    for held in find(module, imports, attrs_of):
        outcome = Outcome(held)
        try:
            _migrate(module, imports, attrs_of, tree, mentioned, kept_captures, tf, target, oracle, outcome)
        except Refused as refused:
            outcome.reason, outcome.new_class = str(refused), None
        outcomes.append(outcome)
    return outcomes


def _migrate(module, imports, attrs_of, tree, mentioned, kept_captures, tf, target, oracle, outcome: Outcome) -> None:
    held = outcome.held
    attrs = attrs_of(held.init)
    outcome.keeps_records = _check(held, attrs, tree, mentioned)
    _check_batch_params(held, tree, kept_captures)
    source = module.code_for_node
    try:
        producer_rule = rule_for(imports.resolve(held.producer_call.func))
        epochs = producer_rule.model(producer_rule.bind(held.producer_call), source, imports.resolve).num_epochs
        batching = held.batch_rule.model(held.batch_rule.bind(held.batch_call), source, imports.resolve)
    except Unsupported as unsupported:
        raise Refused(str(unsupported))
    if batching.enqueue_many or batching.dynamic_pad or batching.shapes or batching.keep_input \
            or batching.shuffle_condition or batching.bucket_boundaries is not None:
        raise Refused("its batching does more than batch and shuffle the records")
    if batching.num_threads is not None and not batching.num_threads.strip().isdigit():
        raise Refused("its batching's `num_threads` is not a number, and the map function that takes its "
                      "threads is made in __init__()")
    self_name = attrs.self_name(held.init)
    uses = cstutil.name_uses(held.init)
    taken = set(uses.loads) | set(uses.stores) | set(cstutil.param_names(held.init))
    locals_of = {attr: _fresh(attr, taken) for attr in (held.queue,) + held.records}
    normalized = _one_block(module, held, self_name, locals_of)
    found = oracle(normalized)
    init = _migrated_init(held, found, normalized, imports)
    before = _method_of(normalized, held.cls.name.value, "__init__")
    map_index, consume, dataset = _split(init, before)
    config = module.config_for_parsing
    body = list(init.body.body)
    # The stages up to the map may repeat the rows already (a slice producer's shuffle_and_repeat).
    repeated = any(".repeat(" in code or "shuffle_and_repeat(" in code
                   for code in (module.code_for_node(stmt) for stmt in body[:map_index]))
    held_lines = ([] if repeated else ["%s = %s.repeat(%s)" % (dataset, dataset, epochs or "")]) + [
        "%s.%s = %s" % (self_name, held.queue, dataset)]
    if outcome.keeps_records:
        element = synth.next_element(Pipeline(FileSource(dataset), None, None, batching, dataset_name=dataset), tf,
                                     target)
        held_lines.append("%s = %s" % (", ".join("%s.%s" % (self_name, a) for a in held.records), element))
    new_init = init.with_changes(body=init.body.with_changes(
        body=body[:map_index + 1] + [cst.parse_statement(line + "\n", config) for line in held_lines]
        + body[consume + 1:]))
    new_method = _batching_method(held, batching, tf, target, config)
    new_class = held.cls.with_changes(body=held.cls.body.with_changes(body=[
        new_init if stmt is held.init else new_method if stmt is held.method else stmt
        for stmt in held.cls.body.body]))
    outcome.new_class = new_class
    outcome.fixed = {id(call) for call in _queue_calls(held.init, imports)} | {id(held.batch_call)}
    outcome.captured = tuple(found.captured_params) + _batch_params(held)


def _batching_method(held: Held, batching, tf: str, target, config) -> cst.FunctionDef:
    """The method with its batching written over the dataset the object holds."""
    self_name = held.method.params.params[0].name.value
    taken = set(cstutil.name_uses(held.method).loads) | set(cstutil.name_uses(held.method).stores)
    dataset = _fresh("dataset", taken)
    pipeline = Pipeline(FileSource("%s.%s" % (self_name, held.queue), held=True), None, None, batching,
                        dataset_name=dataset)
    lines = synth.head_statements(pipeline, tf, target) + synth.tail_statements(pipeline, tf, target)
    element = synth.next_element(pipeline, tf, target)
    small = held.batch.body[0]
    unpacked = isinstance(small, cst.Assign) and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
    if not unpacked and len(held.records) > 1:  # tf.train.batch gave a list
        element = "list(%s)" % element
    consume = held.batch.with_changes(body=[small.with_changes(value=cst.parse_expression(element, config))])
    statements = [cst.parse_statement(line + "\n", config) for line in lines]
    statements[0] = statements[0].with_changes(leading_lines=held.batch.leading_lines)
    body = []
    for stmt in held.method.body.body:
        body += statements + [consume] if stmt is held.batch else [stmt]
    return held.method.with_changes(body=held.method.body.with_changes(body=body))


def _check_batch_params(held: Held, tree, kept_captures: Dict[str, str]) -> None:
    """Refused when a call of the method, in this module or (kept_captures) another, may pass a
    variable, placeholder or random op for a parameter its batching reads."""
    own = None
    for function, name, position in _batch_params(held):
        clause = captured_params.clause_of(kept_captures[function]) if function in kept_captures else None
        if clause is None:
            own = captured_params.stateful_bindings(tree) if own is None else own
            call = captured_params.stateful_call(tree, function, name, position,
                                                 lambda bound: "line %d" % own[bound] if bound in own else None)
            clause = captured_params.call_clause("line %d" % call[0], call[1]) if call is not None else None
        if clause is not None:
            raise Refused("its batching reads `%s`, a parameter of %s(), and %s: a dataset's batch size is "
                          "fixed when the dataset is made" % (name, function, clause))


def _batch_params(held: Held) -> Tuple:
    """The method's parameters its batching reads, for the run to check what callers pass
    (captured_params: a batch size fed through a placeholder cannot size a dataset's batch)."""
    params = [p.name.value for p in held.method.params.params][1:]
    reads = set(cstutil.name_uses(held.batch_call).loads)
    return tuple((held.method.name.value, name, params.index(name)) for name in params if name in reads)
