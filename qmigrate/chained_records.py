"""Records returned through a chain of functions across modules into a hand-built queue.

    # reader.py (its queue the engine reads as a dataset)  # factory.py
    def read(files):                                         def get_examples(folder, training):
        ...                                                      files = glob.glob(folder + '/*.rec')
        record = dataset.make_one_shot_iterator().get_next()     image, label = reader.read(files)
        image, label = decode(record)                            image = augment(image, training)
        return image, label                                      return image, label
    # train.py
    image, label = factory.get_examples(FLAGS.data, True)
    queue = tf.RandomShuffleQueue(capacity=32, min_after_dequeue=16, dtypes=[image.dtype, label.dtype])
    enqueue = queue.enqueue((image, label))
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 4))
    image, label = queue.dequeue()          # or dequeue_many(n): a batch

Each module is analysed on its own, so none sees the whole pipeline. Rewritten together, each
function of the chain returns the dataset of the records it returned, its per-record code mapped
(the end of the chain: what followed the engine's get_next(); a link: what followed its call of
the next function), and the caller builds the queue's stages on the dataset it is given: the
queue's shuffle (min_after_dequeue, seed), the dequeue's batch if any, and takes the records from
its iterator where the dequeue was. The records' epochs are the dataset's own (the end of the
chain repeats as its producer did), so nothing is repeated again; the runner's threads are dropped
(they change the order only, and the map functions are in other modules).

Contract:
- `plan` (set side, run by api after the first pass, stdlib trees only) follows calls
  `module.function(...)` of modules of the set made in a function that builds a tf.*Queue, down a
  chain of functions each of which has one call of the next, to a function the first pass
  migrated to a one-shot iterator's get_next(). A function of the chain whose every reference in
  the run is the chain's own call changes in place (it returns a dataset); any other keeps its
  signature and its result for those callers, delegating to a new `<name>_dataset` twin that the
  chain calls.
- `apply` (worker side, engine.analyse) rewrites one module's part and returns the parts done;
  whatever it cannot prove (a per-record statement that is not an assignment, records used beside
  the queue, another structure) leaves that part as it is. api keeps the rewrite only when every
  part of a chain was done (`held`); otherwise every module keeps its result without it.
"""
import ast
import os
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from qmigrate import cstutil, handbuilt, synth
from qmigrate.returned_dataset import (Refused, blank_statement, body_statements, engine_read, fresh_name,
                                       iterator_dataset, nested_function, per_record_lines, plain_param_names,
                                       rename_rebound, short_text)

MAX_DEPTH = 4
_QUEUES = {"RandomShuffleQueue", "FIFOQueue", "PaddingFIFOQueue"}
TWIN_SUFFIX = "_dataset"


@dataclass(frozen=True)
class Link:
    """One function of a chain, in its module: it changes in place, or gets a twin that does."""

    function: str
    twin: bool  # keep `function` for its other callers; the chain calls `function` + TWIN_SUFFIX
    inner: Optional[str] = None  # the call of the next function, as written (`coco.read`); None: the end
    inner_new: Optional[str] = None  # what the chain calls instead (`coco.read_dataset`)
    spread: bool = True  # the next function's records are a tuple (its parts: the map's arguments)


@dataclass(frozen=True)
class Consumer:
    """A call whose records a hand-built queue of this module takes: it now gives a dataset."""

    function: str  # the top-level function (or `Class.method`) it is made in
    call: str  # as written (`datasets.get_dataset`)
    new_call: str  # what it calls instead
    chain: Tuple[Tuple[str, str], ...] = ()  # (path, function) of each link, in order


def chain_text(chain: Sequence[Tuple[str, str]]) -> str:
    """`get_examples() of factory.py, then read() of records.py`."""
    return ", then ".join("%s() of %s" % (name, os.path.basename(path)) for path, name in chain)


@dataclass(frozen=True)
class Ask:
    """What the run asks of one module about chains (picklable)."""

    consumers: Tuple[Consumer, ...] = ()
    links: Tuple[Link, ...] = ()
    used_by: str = ""  # for the links' finding: where the queue is (`train.py:173`)
    # Consumers of chains not followed, and why: (function, call, reason); their queue says it.
    refused: Tuple[Tuple[str, str, str], ...] = ()

    def parts(self) -> Tuple[str, ...]:
        return tuple("consumer:%s:%s" % (c.function, c.call) for c in self.consumers) + tuple(
            "link:" + link.function for link in self.links)


# ---------------------------------------------------------------- set side

def plan(paths: Sequence[str], program, new_source: Callable[[str], Optional[bytes]],
         left: Callable[[str], bool]) -> Dict[str, Ask]:
    """path -> what to ask of it, for every chain found. `new_source(path)`: the first pass's
    rewrite of a module (None: unchanged); `left(path)`: whether the first pass left queue calls."""
    from qmigrate import imported_helpers
    asks: Dict[str, Ask] = {}
    claimed: Set[Tuple[str, str]] = set()
    for path in paths:
        source = program.source(path) if path.endswith(".py") and left(path) else None
        if source is None or b"Queue(" not in source or b".enqueue" not in source:
            continue
        tree = program.tree(path)
        modules = dict(imported_helpers.module_imports(path, tree, program))
        if not modules:
            continue
        for function in _top_functions(tree):
            if not any(isinstance(n, ast.Call) and _attr_name(n.func) in _QUEUES for n in ast.walk(function)):
                continue
            for stmt in function.body:
                call = _assigned_call(stmt)
                if call is None or not isinstance(call.func, ast.Attribute) or \
                        not isinstance(call.func.value, ast.Name) or call.func.value.id not in modules:
                    continue
                chain = _follow(modules[call.func.value.id], call.func.attr, program, new_source, 0)
                if chain is None or any(step in claimed for step in chain):
                    continue
                text = "%s.%s" % (call.func.value.id, call.func.attr)
                links = _links(chain, path, text, program, new_source)
                if links is None:
                    continue
                claimed.update(chain)
                where = "%s:%d" % (os.path.basename(path), stmt.lineno)
                first_twin = links[0][1].twin
                consumer = Consumer(function.name, text, text + TWIN_SUFFIX if first_twin else text, tuple(chain))
                ask = asks.get(path, Ask())
                asks[path] = Ask(ask.consumers + (consumer,), ask.links, ask.used_by)
                for where_path, link in links:
                    ask = asks.get(where_path, Ask())
                    asks[where_path] = Ask(ask.consumers, ask.links + (link,), ask.used_by or where)
    return asks


def held(asks: Dict[str, Ask], done: Callable[[str], Optional[Tuple[str, ...]]]) -> bool:
    """Whether every module did every part asked of it (`done(path)`: the parts it did)."""
    return all(set(ask.parts()) <= set(done(path) or ()) for path, ask in asks.items())


def explained(asks: Dict[str, Ask], refusals: Callable[[str], Dict[str, str]]) -> Dict[str, Ask]:
    """What to ask of the consumers once a chain was not followed: to say why at their queue.
    `refusals(path)`: part -> why that module did not do it."""
    out = {}
    for path, ask in asks.items():
        refused = []
        for consumer in ask.consumers:
            parts = [(path, "consumer:%s:%s" % (consumer.function, consumer.call))] + [
                (where, "link:" + name) for where, name in consumer.chain]
            why = next((refusals(where).get(part) for where, part in parts if refusals(where).get(part)),
                       "another chain of the run was not followed (all change together)")
            refused.append((consumer.function, consumer.call, why))
        if refused:
            out[path] = Ask(refused=tuple(refused))
    return out


def _top_functions(tree) -> List[ast.FunctionDef]:
    return [n for n in getattr(tree, "body", ()) if isinstance(n, ast.FunctionDef)]


def _attr_name(node) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _assigned_call(stmt) -> Optional[ast.Call]:
    """The call of `target = call(...)` (target a name or a tuple of names)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call)):
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Name) or (isinstance(target, (ast.Tuple, ast.List))
                                        and all(isinstance(e, ast.Name) for e in target.elts)):
        return stmt.value
    return None


def _function(tree, name: str) -> Optional[ast.FunctionDef]:
    found = [f for f in _top_functions(tree) if f.name == name]
    return found[0] if len(found) == 1 else None


def _parse(source: Optional[bytes]):
    try:
        return ast.parse(source) if source is not None else None
    except (SyntaxError, ValueError):
        return None


def _follow(path: str, name: str, program, new_source, depth: int) -> Optional[List[Tuple[str, str]]]:
    """[(path, function)] from `name` of `path` down to the end of the chain, or None."""
    if depth >= MAX_DEPTH:
        return None
    tree = program.tree(path)
    function = _function(tree, name) if tree is not None else None
    if function is None:
        return None
    migrated = _function(_parse(new_source(path)), name)
    if migrated is not None and _reads_iterator(migrated) and not _reads_iterator(function):
        return [(path, name)]
    from qmigrate import imported_helpers
    modules = dict(imported_helpers.module_imports(path, tree, program))
    nexts = []
    for stmt in function.body:
        call = _assigned_call(stmt)
        if call is None:
            continue
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id in modules:
            rest = _follow(modules[call.func.value.id], call.func.attr, program, new_source, depth + 1)
        elif isinstance(call.func, ast.Name) and call.func.id != name and _function(tree, call.func.id):
            rest = _follow(path, call.func.id, program, new_source, depth + 1)
        else:
            continue
        if rest is not None:
            nexts.append(rest)
    if len(nexts) != 1:
        return None
    return [(path, name)] + nexts[0]


def _reads_iterator(function: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "make_one_shot_iterator" for n in ast.walk(function))


def _links(chain: List[Tuple[str, str]], consumer: str, call_text: str, program,
           new_source) -> Optional[List[Tuple[str, Link]]]:
    """The chain's functions as Links: twins where other code calls them."""
    out: List[Tuple[str, Link]] = []
    callers = [(consumer, call_text)]
    for index, (path, name) in enumerate(chain):
        caller_path = callers[-1][0]
        # Whether only its caller refers to it: the first other module that does settles it (a
        # common name such as `read` is mentioned in hundreds of files; most are never parsed).
        own = program.names_in(path).names.get(name, [])
        if caller_path == path:
            alone = len(own) == 1 and next(program.referring_files(name, path), None) is None
        else:
            alone = len(own) == 0 and program.names_in(caller_path).uses(name) == 1 and \
                program.refers(caller_path, name) and \
                next(program.referring_files(name, path, exclude=[caller_path]), None) is None
        inner = None
        spread = True
        if index + 1 < len(chain):
            next_path, next_name = chain[index + 1]
            function = _function(program.tree(path), name)
            texts = [_call_text(_assigned_call(s).func) for s in function.body if _assigned_call(s) is not None]
            matching = [t for t in texts if t.split(".")[-1] == next_name]
            if len(matching) != 1:  # which call leads on must be plain from its text
                return None
            inner = matching[0]
            spread = _returns_tuple(next_path, next_name, program, new_source)
            if spread is None:
                return None
        out.append((path, Link(name, not alone, inner, inner, spread)))
        callers.append((path, name))
    # Each caller calls the twin of a function that has one.
    fixed = []
    for index, (path, link) in enumerate(out):
        if link.inner is not None and out[index + 1][1].twin:
            link = Link(link.function, link.twin, link.inner, link.inner + TWIN_SUFFIX, link.spread)
        fixed.append((path, link))
    return fixed


def _call_text(func) -> str:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return "%s.%s" % (func.value.id, func.attr)
    return func.id if isinstance(func, ast.Name) else ""


def _returns_tuple(path: str, name: str, program, new_source) -> Optional[bool]:
    """Whether the function's last statement returns a literal tuple (True) or one name (False)."""
    tree = _parse(new_source(path)) or program.tree(path)
    function = _function(tree, name) if tree is not None else None
    last = function.body[-1] if function is not None and function.body else None
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    if isinstance(last.value, ast.Tuple):
        return True
    return False if isinstance(last.value, ast.Name) else None


# ---------------------------------------------------------------- worker side

def apply(analysis, ask: Optional[Ask], tf: str, target,
          finding_rule) -> Tuple[Tuple[str, ...], Tuple[Tuple[str, str], ...]]:
    """Rewrite this module's parts of `ask` in analysis.new_module: (the parts done, (part, why)
    for the others). Never raises."""
    if ask is None:
        return (), ()
    done, refused = [], []
    for link in ask.links:
        try:
            analysis.new_module = _apply_link(analysis, link, tf, target, finding_rule, ask.used_by)
        except Refused as why:
            refused.append(("link:" + link.function, str(why)))
            continue
        done.append("link:" + link.function)
    for consumer in ask.consumers:
        part = "consumer:%s:%s" % (consumer.function, consumer.call)
        try:
            analysis.new_module = _apply_consumer(analysis, consumer, tf, target)
        except Refused as why:
            refused.append((part, str(why)))
            continue
        done.append(part)
    for function, call, why in ask.refused:
        _explain(analysis, function, call, why)
    return tuple(done), tuple(refused)


def _explain(analysis, function_name: str, call_text: str, why: str) -> None:
    """The reason at the calls of the queue that takes the records of `call_text`."""
    function = _top(analysis.module, function_name)
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        return
    body = list(function.body.body)
    queues = handbuilt.find(body, function, analysis.imports, analysis.module.code_for_node)
    reason = ("what it enqueues comes from `%s()`, a chain of functions of other modules that qmigrate "
              "follows when each can return the dataset of its records instead; not this one: %s" % (call_text, why))
    for queue in list(queues.accepted.values()):
        statements = [body[i] for i in set(queue.plumbing) | {queue.enqueue_index, queue.dequeue_index}]
        for rule, node, _, _ in analysis.occurrences:
            if id(node) not in analysis.fixed_calls and any(
                    any(n is node for n in cstutil.nodes_of(stmt, (type(node),))) for stmt in statements):
                analysis.reasons[id(node)] = reason


def _top(module: cst.Module, name: str) -> Optional[cst.FunctionDef]:
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return found[0] if len(found) == 1 else None


def _target_names(target: cst.BaseExpression) -> Optional[List[str]]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in target.elements):
        return [e.value.value for e in target.elements]
    return None


def _returned_records(returned: cst.BaseExpression, tainted: Set[str], owner: str) -> None:
    parts = [e.value for e in returned.elements] if isinstance(returned, cst.Tuple) else [returned]
    if not all(set(cstutil.name_uses(p).loads) & tainted for p in parts):
        raise Refused("%s() returns something else than its per-record tensors" % owner)


def _own_body(function: cst.FunctionDef) -> List[cst.BaseStatement]:
    """The function's own statements: returned_dataset's body_statements entering no `with` block (this
    module rebuilds the function's own body; a `with` there is code it does not follow)."""
    return body_statements(function, lambda func: None)


def _apply_link(analysis, link: Link, tf: str, target, finding_rule, used_by: str) -> cst.Module:
    module, resolve = analysis.new_module, analysis.imports.resolve
    function, original = _top(module, link.function), _top(analysis.module, link.function)
    if function is None or original is None:
        raise Refused("%s() is not one top-level function" % link.function)
    body, params = _own_body(function), plain_param_names(function)
    config = module.config_for_parsing
    code = cst.Module([]).code_for_node
    if link.inner is None:  # the end: the engine's one-shot read
        at = engine_read(function, original, resolve)
        if at is None:
            raise Refused("%s() does not read its records from a one-shot iterator" % link.function)
        record = cstutil.single_assign(body[at])[0].value
        source = code(iterator_dataset(cstutil.single_assign(body[at])[1], resolve))
        names, map_params = [record], [record]
    else:
        if not function.deep_equals(original):
            raise Refused("%s() was rewritten already" % link.function)
        at = next((i for i, stmt in enumerate(body) if cstutil.single_assign(stmt) is not None
                   and isinstance(cstutil.single_assign(stmt)[1], cst.Call)
                   and code(cstutil.single_assign(stmt)[1].func) == link.inner), None)
        if at is None:
            raise Refused("%s() does not call %s()" % (link.function, link.inner))
        assign = cstutil.single_assign(body[at])
        names = _target_names(assign[0])
        spread_target = isinstance(assign[0], (cst.Tuple, cst.List))
        if names is None or spread_target != link.spread:
            raise Refused("%s() binds the records of %s() otherwise than they come (%s)" % (
                link.function, link.inner, "a tuple" if link.spread else "one structure"))
        inner_call = assign[1].with_changes(func=cst.parse_expression(link.inner_new, config))
        source = code(inner_call)
        map_params = names
    rest = body[at + 1:]
    if any(cstutil.nodes_of(stmt, (cst.Return, cst.Yield)) for stmt in body[:at] + rest[:-1]):
        raise Refused("%s() returns (or yields) elsewhere than at its end" % link.function)
    ret = cstutil.single_small(rest[-1]) if rest else None
    if not isinstance(ret, cst.Return) or ret.value is None:
        raise Refused("%s() does not end by returning its records" % link.function)
    work, tainted = per_record_work(rest[:-1], set(names), resolve, link.function)
    _returned_records(ret.value, tainted, link.function)
    kept = [stmt for i, stmt in enumerate(rest[:-1]) if i not in work]
    statements, returned = rename_rebound([rest[i] for i in work], ret.value, map_params, link.function)
    captures_nothing_stateful(statements, returned, map_params, list(body[:at]) + kept, resolve, link.function)
    taken = set(cstutil.name_uses(function).loads) | set(cstutil.name_uses(function).stores)
    parse = fresh_name("parse_record" if link.inner is None else "prepare_record", taken)
    dataset = fresh_name("dataset", taken | {parse})
    nested = nested_function(parse, map_params, statements, returned, config)
    new_body = list(body[:at])
    if link.inner is not None:
        new_body.append(_rebound(body[at], dataset, inner_call))
        mapped = "%s.map(%s)" % (dataset, parse)
    else:
        mapped = "%s.map(%s)" % (source, parse)
    lead = body[at].leading_lines if link.inner is None else ()
    nested = nested.with_changes(leading_lines=list(lead))
    # The return keeps the comments above it.
    new_return = rest[-1].with_changes(body=[cst.parse_statement("return %s\n" % mapped, config).body[0]])
    new_body += kept + [blank_statement(nested) if new_body else nested, blank_statement(new_return)]
    name = link.function + TWIN_SUFFIX if link.twin else link.function
    if link.twin and any(isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.name.value == name
                         for s in module.body):
        raise Refused("the module already defines %s" % name)
    changed = function.with_changes(name=cst.Name(name), body=function.body.with_changes(body=new_body))
    position = list(module.body).index(function)
    if link.twin:
        # The old function keeps its signature, docstring and result for its other callers.
        docstring = [body[0]] if body and isinstance(cstutil.single_small(body[0]), cst.Expr) and isinstance(
            cstutil.single_small(body[0]).value, (cst.SimpleString, cst.ConcatenatedString)) else []
        old = function.with_changes(body=function.body.with_changes(body=docstring + [cst.parse_statement(
            "return %s.get_next()\n" % synth._one_shot("%s(%s)" % (name, ", ".join(params)), tf, target),
            config)]))
        replaced = [changed.with_changes(leading_lines=function.leading_lines), old.with_changes(
            leading_lines=[cst.EmptyLine(indent=False)] * 2)]
    else:
        replaced = [changed]
    analysis.add_finding(finding_rule, original.name, True,
                         "%s() now returns the dataset of its records (their per-record code mapped) for the "
                         "hand-built queue at %s, whose stages its caller builds on it%s" % (
                             link.function if not link.twin else name, used_by,
                             "; %s() keeps its result for its other callers" % link.function if link.twin else ""))
    return module.with_changes(body=list(module.body[:position]) + replaced + list(module.body[position + 1:]))


def per_record_work(statements: Sequence[cst.BaseStatement], tainted: Set[str], resolve, owner: str
                ) -> Tuple[List[int], Set[str]]:
    """returned_dataset.per_record_lines, where an `if` that reads the records counts as one per-record
    statement when its test reads no record and calls nothing (a Python test of names, attributes
    and literals: the map function evaluates it as the function did, once, when it is built) and
    every statement of every arm is per-record code in turn. Raises Refused as it does."""
    tainted, indices, others = set(tainted), [], set()
    for index, stmt in enumerate(statements):
        uses = cstutil.name_uses(stmt)
        if not set(uses.loads) & tainted:
            others |= set(uses.stores)
            continue
        if isinstance(stmt, cst.If):
            _per_record_if(stmt, tainted, resolve, owner)
            now = tainted | set(uses.stores)
        else:
            _, now = per_record_lines([stmt], tainted, resolve, owner)
        indices.append(index)
        tainted = now
    both = tainted & others
    if both:
        raise Refused("`%s` is bound both by per-record code of %s() and by code that is not" % (
            sorted(both)[0], owner))
    return indices, tainted


_PLAIN_TEST = (cst.Name, cst.Attribute, cst.BaseNumber, cst.BaseString, cst.Comparison, cst.ComparisonTarget,
               cst.BooleanOperation, cst.UnaryOperation, cst.BaseCompOp, cst.BaseBooleanOp, cst.BaseUnaryOp)


def _per_record_if(stmt: cst.If, tainted: Set[str], resolve, owner: str) -> None:
    if set(cstutil.name_uses(stmt.test).loads) & tainted or not all(
            isinstance(node, _PLAIN_TEST) or not isinstance(node, cst.BaseExpression)
            for node in cstutil.nodes_of(stmt.test, (cst.CSTNode,))):
        raise Refused("the per-record code of %s() holds an `if` whose test reads a record or is not a plain "
                      "Python test of names, attributes and literals (line of `%s`)" % (owner, short_text(stmt)))
    arm = stmt
    while arm is not None:
        block = arm.body.body if isinstance(arm, (cst.If, cst.Else)) else ()
        if not isinstance(arm.body, cst.IndentedBlock):
            raise Refused("the per-record code of %s() holds an `if` written on one line" % owner)
        work, _ = per_record_work(block, tainted, resolve, owner)
        if len(work) != len(block):
            raise Refused("an `if` of the per-record code of %s() holds code that is not per-record" % owner)
        arm = arm.orelse if isinstance(arm, cst.If) else None


def captures_nothing_stateful(statements, returned, params, around, resolve, owner: str) -> None:
    """Raises Refused when the map function would read a name its function binds with a stateful
    op (a random op, a variable, a placeholder, py_func): a one-shot iterator cannot capture it."""
    from qmigrate.recognise import _STATEFUL_OPS
    bound = set(params)
    free = set()
    for stmt in statements:
        uses = cstutil.name_uses(stmt)
        free |= set(uses.loads) - bound
        bound |= set(uses.stores)
    free |= set(cstutil.name_uses(returned).loads) - bound
    for stmt in around:
        uses = cstutil.name_uses(stmt)
        if not set(uses.stores) & free:
            continue
        for call in cstutil.calls_of(stmt):
            name = resolve(call.func) or ""
            if name.startswith(_STATEFUL_OPS):
                raise Refused("the per-record code of %s() reads `%s`, made by `%s`, which a one-shot iterator's map "
                              "function cannot capture" % (owner, sorted(set(uses.stores) & free)[0], short_text(call)))


def _apply_consumer(analysis, consumer: Consumer, tf: str, target) -> cst.Module:
    module, original_module = analysis.new_module, analysis.module
    function, original = _top(module, consumer.function), _top(original_module, consumer.function)
    if function is None or original is None or not function.deep_equals(original):
        raise Refused("%s() is not one top-level function as written" % consumer.function)
    body = _own_body(original)
    code = original_module.code_for_node
    config = module.config_for_parsing
    queues = handbuilt.find(body, original, analysis.imports, code)
    for at, stmt in enumerate(body):
        assign = cstutil.single_assign(stmt)
        if assign is None or not isinstance(assign[1], cst.Call) or \
                cst.Module([]).code_for_node(assign[1].func) != consumer.call:
            continue
        names = _target_names(assign[0])
        queue = next((q for q in queues.accepted.values() if q.enqueue_index > at
                      and _enqueued(q.tensors) == names), None)
        if names is None or queue is None:
            continue
        _check_consumer(body, at, queue, names, consumer)
        call = assign[1]
        if consumer.new_call != consumer.call:  # the first function of the chain has a twin
            call = call.with_changes(func=cst.parse_expression(consumer.new_call, config))
        return _rewrite_consumer(module, function, body, at, call, queue, tf, target, config, analysis)
    raise Refused("no hand-built queue of %s() enqueues what %s() returns" % (consumer.function, consumer.call))


def _rebound(stmt: cst.SimpleStatementLine, name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    """`targets = call(...)` as `name = value`, spaced as written (a `\\` after `=` stays)."""
    small = stmt.body[0]
    target = small.targets[0].with_changes(target=cst.Name(name))
    return stmt.with_changes(body=[small.with_changes(targets=[target], value=value)])


def _enqueued(tensors: cst.BaseExpression) -> Optional[List[str]]:
    if isinstance(tensors, cst.Name):
        return [tensors.value]
    if isinstance(tensors, (cst.Tuple, cst.List)) and len(tensors.elements) > 1:
        return _target_names(tensors)
    return None


def _check_consumer(body, at: int, queue, names: List[str], consumer: Consumer) -> None:
    """The records are read only by the queue's own statements, and what the dequeue binds is
    touched by no other statement before it (both are bound where the call was); a record name
    the dequeue does not bind again is not read after it."""
    queue_statements = set(queue.plumbing) | {queue.enqueue_index, queue.dequeue_index}
    if queue.dequeue_index < queue.enqueue_index or (queue.batching is None and queue.record_statements is None):
        raise Refused(queue.records_refused or "the queue's dequeue cannot be followed")
    if queue.helper is not None or queue.condition is not None or queue.structure is not None:
        raise Refused("the queue is a helper's")
    if any(i < at for i in queue_statements):
        raise Refused("the queue is built before %s() is called" % consumer.call)
    dequeued = set(cstutil.name_uses(body[queue.dequeue_index]).stores)
    watched = set(names) | dequeued
    for index in range(at + 1, queue.dequeue_index):
        if index in queue_statements:
            continue
        uses = cstutil.name_uses(body[index])
        if watched & (set(uses.loads) | set(uses.stores) | set(uses.mutated)):
            raise Refused("the records of %s() are used beside the queue" % consumer.call)
    after = set()
    for stmt in body[queue.dequeue_index + 1:]:
        after |= set(cstutil.name_uses(stmt).loads)
    if (set(names) - dequeued) & after:
        raise Refused("the records of %s() are read after the queue's dequeue" % consumer.call)


def _rewrite_consumer(module, function, body, at, call, queue, tf, target, config, analysis) -> cst.Module:
    taken = set(cstutil.name_uses(function).loads) | set(cstutil.name_uses(function).stores)
    ds = fresh_name("dataset", taken)
    stage = queue.batching or queue.stage
    if stage.enqueue_many or stage.keep_input or stage.bucket_boundaries is not None or stage.shuffle_condition:
        raise Refused("the queue is filled with enqueue_many or batched otherwise than by a dequeue")
    lines = []
    if stage.shapes:
        # The queue set `shapes=` on what it gave: set on each record, as the queue did.
        names = _enqueued(queue.tensors)
        if names is None or len(names) != len(stage.shapes):
            raise Refused("it sets `shapes=` for tensors that are not plain names")
        setter = fresh_name("set_shapes", taken | {ds})
        lines.append("def %s(%s):\n%s    return %s\n" % (
            setter, ", ".join(names), "".join("    %s.set_shape(%s)\n" % pair for pair in zip(names, stage.shapes)),
            ", ".join(names)))
        lines.append("%s = %s.map(%s)" % (ds, ds, setter))
    if stage.shuffle_buffer:
        seed = ", seed=%s" % stage.seed if stage.seed else ""
        lines.append("%s = %s.shuffle(%s%s)" % (ds, ds, stage.shuffle_buffer, seed))
    if queue.batching is not None:
        lines.append("%s = %s.%s" % (ds, ds, synth._batch(ds, queue.batching, tf, target)))
    lines.append("%s = %s.prefetch(1)" % (ds, ds))
    dequeue = body[queue.dequeue_index]
    element = "%s.get_next()" % synth._one_shot(ds, tf, target)
    targets = cstutil.single_assign(dequeue)
    if targets is None:
        raise Refused("the dequeue is not an assignment")
    if isinstance(targets[0], cst.Name) and isinstance(queue.tensors, (cst.Tuple, cst.List)):
        element = "list(%s)" % element  # the dequeue gave a list
    got = cst.parse_statement("%s = %s\n" % (cst.Module([]).code_for_node(targets[0]), element), config)
    removed = set(queue.plumbing) | {queue.enqueue_index, queue.dequeue_index, at}
    new_body = []
    for index, stmt in enumerate(body):
        if index == at:
            # The records now come from the dataset, through the queue's stages, where the call gave them.
            parsed = [cst.parse_statement(line + "\n", config) for line in lines]
            # A nested function stands apart, with a blank line before and after it.
            parsed = [blank_statement(p) if isinstance(p, cst.FunctionDef)
                      or (i and isinstance(parsed[i - 1], cst.FunctionDef)) else p for i, p in enumerate(parsed)]
            new_body += [_rebound(stmt, ds, call)] + parsed + [got]
            continue
        if index in removed:
            continue
        new_body.append(stmt)
    for rule, node, _, _ in analysis.occurrences:
        if any(any(n is node for n in cstutil.nodes_of(body[i], (type(node),))) for i in removed):
            analysis.fixed_calls.add(id(node))
    analysis.pipelines += 1
    position = list(module.body).index(function)
    changed = function.with_changes(body=function.body.with_changes(body=new_body))
    return module.with_changes(body=list(module.body[:position]) + [changed] + list(module.body[position + 1:]))
