"""A prefetch queue over a batch the migration made into a dataset becomes that dataset's iterator.

    images, labels = dataset.make_one_shot_iterator().get_next()    # the migrated batching
    labels = slim.one_hot_encoding(labels, num_classes)             # code on the batch
    batch_queue = slim.prefetch_queue.prefetch_queue([images, labels], capacity=2 * num_clones)

    def clone_fn(batch_queue):
        images, labels = batch_queue.dequeue()
        ...
    clones = model_deploy.create_clones(deploy_config, clone_fn, [batch_queue])

becomes

    def prepare_batch(images, labels):
        labels = slim.one_hot_encoding(labels, num_classes)
        return images, labels

    dataset = dataset.map(prepare_batch)
    dataset = dataset.prefetch(2 * num_clones)
    batch_queue = dataset.make_one_shot_iterator()
    ...
        images, labels = batch_queue.get_next()

Why it keeps the meaning: each `dequeue()` of the prefetch queue took the next batch the batching
made (each tower or clone its own); each `get_next()` of one iterator takes the next element of the
dataset, so every clone still gets a batch of its own and every batch reaches one clone. The code
between the batching and the queue ran once per batch; in a map over batches it still does. The
iterator prefetches what the queue held (`capacity`, 8 when not given). The queue's summary of how
full it was goes with it.

Contract: `rewrite` acts on a `Q = prefetch_queue([a, b, ...], capacity=...)` line of a top-level
function or method whose migration wrote, earlier in the same block, `D = D.prefetch(n)` then
`T = D.make_one_shot_iterator().get_next()`, with only assignments between that line and the
queue's. It rewrites only when:
- the queue's tensors are a list or tuple of names, each bound by T or by those assignments, and
  none of those names is read anywhere else in the function (scopes as Python has them);
- the assignments call only TensorFlow ops that make no summary, collection entry, variable or
  placeholder (no layers: of their modules only `one_hot_encoding`), and read no parameter of
  the function and no name it binds to a TensorFlow call (a tensor captured by value into the map
  would fail, or freeze what the queue read anew);
- `dynamic_pad` and `shared_name` are not given;
- every other use of Q (in its scope) is `Q.dequeue()`, or an element of a list passed, together
  with a function F defined in the same function and named nowhere else, to a function that only
  calls F with that list as its arguments (`model_fn(*args, **kwargs)`: slim's `create_clones`),
  read from this module or a module beside it; F's parameter at that element's place is used
  only as `p.dequeue()`.
Otherwise the queue stays, and `reasons` says why.
"""
import ast
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil, decorated_calls, graph_state
from qmigrate.dead_datasets import Swap, functions_by_path, own_lines
from qmigrate.handbuilt import Declined, bind_arguments
from qmigrate.names import ImportMap

SIGNATURE = ("tensors", "capacity", "num_threads", "dynamic_pad", "shared_name", "name")
DEFAULT_CAPACITY = "8"  # slim's prefetch_queue(capacity=8)
_PLACEHOLDERS = ("tensorflow.placeholder", "tensorflow.placeholder_with_default", "tensorflow.sparse_placeholder")
# Layers may make variables or collection entries; of their modules only one_hot_encoding is taken.
_LAYERS = ("tensorflow.layers.", "tensorflow.keras.", "tensorflow.contrib.layers.", "tensorflow.contrib.slim.")
_MAP_NAME = "prepare_batch"
COMMENT = "# Each get_next() takes the next batch, as each dequeue of the prefetch queue did."


@dataclass
class Outcome:
    """What `rewrite` did: the new module, the ids of the prefetch calls (of the original module)
    it replaced, and the reasons of those it recognised after a migrated batching but left."""
    module: cst.Module
    fixed: Set[int] = field(default_factory=set)
    reasons: Dict[int, str] = field(default_factory=dict)


def rewrite(old: cst.Module, new: cst.Module, imports: ImportMap, calls: List[cst.Call],
            tree: Optional[ast.Module], path_of: Callable[[str], Optional[str]]) -> Outcome:
    """`new` (the migration of `old`) with the prefetch queues of `calls` (calls of `old` the
    migration left) that take a migrated batch replaced by its iterator (see the contract)."""
    outcome = Outcome(new)
    wanted = {id(call) for call in calls}
    if not wanted:
        return outcome
    old_functions, replaced = functions_by_path(old), {}
    for path, function in functions_by_path(new).items():
        before = old_functions.get(path)
        if before is None:
            continue
        edited = function
        for line in own_lines(before):
            call = _queue_call(line)
            if call is None or id(call) not in wanted:
                continue
            try:
                result = _rewrite_one(edited, before, line, imports, tree, path_of)
            except Declined as refused:
                outcome.reasons[id(call)] = str(refused)
                continue
            if result is not None:
                edited = result
                outcome.fixed.add(id(call))
        if edited is not function:
            replaced[id(function)] = edited
    if replaced:
        outcome.module = new.visit(Swap(replaced))
    return outcome


def _queue_call(line: cst.SimpleStatementLine) -> Optional[cst.Call]:
    """The call of `Q = <call>` (any call: the caller knows which are prefetch queues)."""
    assign = cstutil.single_assign(line)
    if assign is None or not isinstance(assign[0], cst.Name) or not isinstance(assign[1], cst.Call):
        return None
    return assign[1]


def _text(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _rewrite_one(function: cst.FunctionDef, before: cst.FunctionDef, old_line: cst.SimpleStatementLine,
                 imports: ImportMap, tree, path_of) -> Optional[cst.FunctionDef]:
    """`function` with the queue of `old_line` (a line of `before`) replaced; None when the
    line does not follow a migrated batching here (nothing to say); Declined with the reason when
    it does but cannot be replaced."""
    text = _text(old_line.body[0])
    matches = [line for line in own_lines(function) if len(line.body) == 1 and _text(line.body[0]) == text]
    if len(matches) != 1:
        return None
    line = matches[0]
    block = _block_of(function, line)
    if block is None:
        return None
    body = list(block.body)
    index = next(i for i, stmt in enumerate(body) if stmt is line)
    found = _batching_before(body, index, before)
    if found is None:
        return None
    prefetch_index, get_next_index, dataset, targets = found
    between = body[get_next_index + 1:index]
    target, call = cstutil.single_assign(line)
    queue_name = target.value
    args = bind_arguments(call, SIGNATURE, "the prefetch queue", "slim")
    tensors = _tensor_names(args)
    _check_arguments(args)
    bound = list(targets)
    for stmt in between:
        bound += [name for name in _assigned_names(stmt) if name not in bound]
    missing = [name for name in tensors if name not in bound]
    if missing:
        raise Declined("the prefetch queue takes `%s`, which neither the iterator's batch nor the code between "
                       "them binds" % missing[0])
    _check_between(function, between, bound, imports)
    _check_only_here(function, body[get_next_index:index + 1], bound)
    renamed = _dequeues(function, queue_name, line, imports, tree, path_of)
    capacity = args.get("capacity") or cst.parse_expression(DEFAULT_CAPACITY)
    lines = _replacement(function, body[prefetch_index], body[get_next_index], between, line, dataset, targets,
                         tensors, capacity)
    return function.visit(_Edit(renamed, block, prefetch_index, index, lines))


def _block_of(function: cst.FunctionDef, line: cst.SimpleStatementLine) -> Optional[cst.IndentedBlock]:
    """The indented block of `function` whose statements hold `line`."""
    for node in cstutil.nodes_of(function, (cst.IndentedBlock,)):
        if any(stmt is line for stmt in node.body):
            return node
    return None


def _batching_before(body, index: int, before: cst.FunctionDef):
    """(index of `D = D.prefetch(n)`, index of `T = D.make_one_shot_iterator().get_next()`, D,
    the names T binds) for the last such pair before `index` in `body` with only assignments
    after it, both written by the migration (not lines of `before`); None otherwise."""
    old_texts = {_text(stmt) for stmt in own_lines(before)}
    for at in range(index - 1, 0, -1):
        stmt = body[at]
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        got = _get_next(stmt)
        if got is None:
            if not isinstance(stmt.body[0], (cst.Assign, cst.AugAssign)):
                return None
            continue
        dataset, targets = got
        previous = body[at - 1]
        assign = cstutil.single_assign(previous)
        if not (assign and isinstance(assign[0], cst.Name) and assign[0].value == dataset
                and isinstance(assign[1], cst.Call) and isinstance(assign[1].func, cst.Attribute)
                and assign[1].func.attr.value == "prefetch" and isinstance(assign[1].func.value, cst.Name)
                and assign[1].func.value.value == dataset):
            return None
        if _text(stmt) in old_texts or _text(previous) in old_texts:
            return None
        return at - 1, at, dataset, targets
    return None


def _get_next(stmt: cst.SimpleStatementLine) -> Optional[Tuple[str, List[str]]]:
    """(D, names) for `a, b = D.make_one_shot_iterator().get_next()` (or `a = ...`)."""
    assign = cstutil.single_assign(stmt)
    if assign is None:
        return None
    target, value = assign
    if not (cstutil.plain_get_next(value) and isinstance(value.func.value, cst.Call)):
        return None
    maker = value.func.value
    if not (not maker.args and isinstance(maker.func, cst.Attribute)
            and maker.func.attr.value == "make_one_shot_iterator" and isinstance(maker.func.value, cst.Name)):
        return None
    if isinstance(target, cst.Name):
        return maker.func.value.value, [target.value]
    if isinstance(target, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements):
        return maker.func.value.value, [e.value.value for e in target.elements]
    return None


def _tensor_names(args: Dict[str, cst.BaseExpression]) -> List[str]:
    tensors = args.get("tensors")
    if not (isinstance(tensors, (cst.List, cst.Tuple)) and tensors.elements and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in tensors.elements)):
        raise Declined("the prefetch queue's tensors are not a list or tuple of names")
    return [e.value.value for e in tensors.elements]


def _check_arguments(args: Dict[str, cst.BaseExpression]) -> None:
    pad = args.get("dynamic_pad")
    if pad is not None and not (isinstance(pad, cst.Name) and pad.value == "False"):
        raise Declined("the prefetch queue pads its batches (`dynamic_pad=`), which the iterator's batches "
                       "do not need and qmigrate does not prove")
    shared = args.get("shared_name")
    if shared is not None and not (isinstance(shared, cst.Name) and shared.value == "None"):
        raise Declined("the prefetch queue is shared by name with other sessions (`shared_name=`), which "
                       "tf.data has no counterpart for")


def _assigned_names(stmt: cst.SimpleStatementLine) -> List[str]:
    small = stmt.body[0]
    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
    names = []
    for target in targets:
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else [cst.Element(target)]
        for element in elements:
            if not isinstance(element.value, cst.Name):
                raise Declined("the code between the batching and the prefetch queue assigns to `%s`, not a name"
                               % _text(element.value))
            names.append(element.value.value)
    return names


def _check_between(function: cst.FunctionDef, between, bound: List[str], imports: ImportMap) -> None:
    """The code between the batching and the queue can run in a map over batches."""
    params = set(cstutil.param_names(function))
    tf_bound = _bound_to_tf_calls(function, imports)
    for stmt in between:
        for call in cstutil.calls_of(stmt):
            name = imports.resolve(call.func) or ""
            if not name.startswith("tensorflow."):
                raise Declined("the code between the batching and the prefetch queue calls `%s`, which qmigrate "
                               "does not read; in a map over batches it would run in the map's graph"
                               % _text(call.func))
            if graph_state.makes_state(name) or name in _PLACEHOLDERS or (
                    name.startswith(_LAYERS) and not name.endswith(".one_hot_encoding")):
                raise Declined("the code between the batching and the prefetch queue calls `%s`, which in a map "
                               "over batches would be made in the map's graph" % _text(call.func))
        for name in cstutil.name_uses(stmt).loads:
            if name in bound:
                continue
            if name in params:
                raise Declined("the code between the batching and the prefetch queue reads `%s`, a parameter of "
                               "%s(), which a map over batches would capture by value (a caller may pass a "
                               "tensor)" % (name, function.name.value))
            if name in tf_bound:
                raise Declined("the code between the batching and the prefetch queue reads `%s`, a tensor made "
                               "before it, which a map over batches would capture" % name)


def _bound_to_tf_calls(function: cst.FunctionDef, imports: ImportMap) -> Set[str]:
    """The names the function binds to the result of a TensorFlow call (tensors, maybe)."""
    names = set()
    for line in own_lines(function):
        assign = cstutil.single_assign(line)
        if assign is None or not isinstance(assign[1], cst.Call):
            continue
        if (imports.resolve(assign[1].func) or "").startswith("tensorflow."):
            names |= set(cstutil.name_uses(line).stores)
    return names


def _check_only_here(function: cst.FunctionDef, lines, bound: List[str]) -> None:
    """The batch's names occur only in `lines` (the batching's get_next up to the queue)."""
    loads = Counter(cstutil.scoped_uses(function).loads)
    here = [cstutil.name_uses(line) for line in lines]
    stored = Counter(name for line in own_lines(function) for name in cstutil.name_uses(line).stores)
    for name in bound:
        if loads[name] != sum(u.loads.count(name) for u in here):
            raise Declined("`%s`, a tensor the prefetch queue takes, is also read outside the code that "
                           "makes the batch" % name)
        if stored[name] != sum(1 for u in here if name in u.stores):
            raise Declined("`%s`, a tensor the prefetch queue takes, is bound again elsewhere in %s()"
                           % (name, function.name.value))


class _NameSites(cst.CSTVisitor):
    """The Name nodes of one name in a function's scope (not in nested scopes that bind it)."""

    def __init__(self, name: str, root: cst.FunctionDef):
        self.name, self.root = name, root
        self.sites: List[cst.Name] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is self.root:
            return True
        binds = self.name in cstutil.param_names(node) or self.name in cstutil.own_bindings(node)
        return not binds

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self.name not in {p.name.value for p in node.params.params}

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.sites.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # the attribute's own name is no use of a variable
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # nor is a keyword
        return False


def _sites(node: cst.FunctionDef, name: str) -> List[cst.Name]:
    visitor = _NameSites(name, node)
    node.visit(visitor)
    return visitor.sites


def _dequeue_names(node: cst.CSTNode, name: str) -> Set[int]:
    """ids of the Name nodes `name` in `name.dequeue()` calls (no arguments) under `node`."""
    found = set()
    for call in cstutil.calls_of(node):
        func = call.func
        if (isinstance(func, cst.Attribute) and func.attr.value == "dequeue" and not call.args
                and isinstance(func.value, cst.Name) and func.value.value == name):
            found.add(id(func.value))
    return found


def _dequeues(function: cst.FunctionDef, queue: str, line: cst.SimpleStatementLine, imports: ImportMap,
              tree, path_of) -> Set[int]:
    """ids of the `.dequeue()` calls' receivers to turn into `.get_next()`: the queue's in its
    scope and the parameters of clone functions it is handed to; Declined for any other use."""
    sites = _sites(function, queue)
    binding = cstutil.single_assign(line)[0]
    dequeued = _dequeue_names(function, queue)
    renamed = {id(site) for site in sites if id(site) in dequeued}
    handed = _handed(function, queue, imports, tree, path_of)
    for site in sites:
        if site is binding or id(site) in renamed:
            continue
        if id(site) in handed:
            renamed |= handed[id(site)]
            continue
        raise Declined("%s, and an iterator has no use of a queue but its dequeue() (get_next()), which a clone "
                       "function it is handed to may make" % _use(function, site, queue))
    return renamed


def _use(function: cst.FunctionDef, site: cst.Name, queue: str) -> str:
    """How the queue is used at `site`, for a refusal."""
    for node in cstutil.nodes_of(function, (cst.Attribute,)):
        if node.value is site:
            return "it is used as `%s.%s`" % (queue, node.attr.value)
    return "`%s` is used other than by `%s.dequeue()`" % (queue, queue)


def _handed(function: cst.FunctionDef, queue: str, imports: ImportMap, tree, path_of) -> Dict[int, Set[int]]:
    """{id of a `queue` element of a list argument: ids of the dequeue receivers in the clone
    function it is handed to} for the calls `g(..., F, [..., queue, ...])` whose g only calls F
    with that list (see _forwards) and whose F dequeues the element's parameter and nothing else."""
    local = {stmt.name.value: stmt for stmt in cstutil.nodes_of(function.body, (cst.FunctionDef,))}
    handed: Dict[int, Set[int]] = {}
    for call in cstutil.calls_of(function):
        lists = [(i, arg) for i, arg in enumerate(call.args)
                 if isinstance(arg.value, (cst.List, cst.Tuple)) and any(
                     isinstance(e.value, cst.Name) and e.value.value == queue for e in arg.value.elements)]
        if not lists:
            continue
        clone_args = [(i, arg) for i, arg in enumerate(call.args)
                      if isinstance(arg.value, cst.Name) and arg.value.value in local]
        if len(lists) != 1 or len(clone_args) != 1 or any(arg.star for arg in call.args):
            continue
        (list_at, list_arg), (clone_at, clone_arg) = lists[0], clone_args[0]
        clone = local[clone_arg.value.value]
        if len(_sites(function, clone.name.value)) != 2:  # its def and this argument
            continue
        if not _forwards(call, list_at, clone_at, imports, tree, path_of):
            continue
        params = clone.params.params
        for at, element in enumerate(list_arg.value.elements):
            if not (isinstance(element.value, cst.Name) and element.value.value == queue):
                continue
            if at >= len(params):
                continue
            param = params[at].name.value
            uses = _sites(clone, param)
            receivers = _dequeue_names(clone, param)
            if uses and all(site is params[at].name or id(site) in receivers for site in uses):
                handed[id(element.value)] = {id(site) for site in uses if id(site) in receivers}
    return handed


def _forwards(call: cst.Call, list_at: int, clone_at: int, imports: ImportMap, tree, path_of) -> bool:
    """Whether the function `call` calls (of this module, or a module beside it) only calls its
    parameter at `clone_at` with its parameter at `list_at` as the arguments (`f(*args, ...)`)."""
    defined = _callee(call.func, imports, tree, path_of)
    if defined is None:
        return False
    params = [a.arg for a in defined.args.args]
    names = []
    for at, arg in ((list_at, call.args[list_at]), (clone_at, call.args[clone_at])):
        if arg.keyword is not None:
            names.append(arg.keyword.value if arg.keyword.value in params else None)
        else:
            names.append(params[at] if at < len(params) else None)
    args_name, fn_name = names
    if args_name is None or fn_name is None or args_name == fn_name:
        return False
    for node in ast.walk(defined):
        if isinstance(node, ast.Name) and node.id in (args_name, fn_name):
            if isinstance(node.ctx, ast.Store):
                if node.id != args_name:
                    return False
        elif isinstance(node, (ast.FunctionDef, ast.Lambda, ast.AsyncFunctionDef)) and node is not defined:
            return False
    # Every load of the clone function is a call's callee whose only positional arguments are
    # `*args`; every load of `args` is that star, or `args = args or <literal>`.
    allowed: Set[int] = set()
    for node in ast.walk(defined):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == fn_name:
            if not (len(node.args) == 1 and isinstance(node.args[0], ast.Starred)
                    and isinstance(node.args[0].value, ast.Name) and node.args[0].value.id == args_name):
                return False
            allowed |= {id(node.func), id(node.args[0].value)}
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == args_name:
            value = node.value
            if not (isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and len(value.values) == 2
                    and isinstance(value.values[0], ast.Name) and value.values[0].id == args_name
                    and isinstance(value.values[1], (ast.List, ast.Tuple)) and not value.values[1].elts):
                return False
            allowed |= {id(node.targets[0]), id(value.values[0])}
    for node in ast.walk(defined):
        if isinstance(node, ast.Name) and node.id in (args_name, fn_name) and id(node) not in allowed:
            return False
    return True


def _callee(func: cst.BaseExpression, imports: ImportMap, tree, path_of) -> Optional[ast.FunctionDef]:
    """The top-level function `func` names: of this module (`tree`), or of a module beside it."""
    if isinstance(func, cst.Name) and func.value not in imports.aliases:
        module, name = tree, func.value
    else:
        resolved = imports.resolve(func) or ""
        if "." not in resolved or resolved.startswith("tensorflow."):
            return None
        module_name, name = resolved.rsplit(".", 1)
        path = path_of(module_name) if path_of is not None else None
        module = decorated_calls.tree_of(path) if path else None
    if module is None:
        return None
    found = [node for node in module.body if isinstance(node, ast.FunctionDef) and node.name == name]
    return found[0] if len(found) == 1 and not found[0].args.vararg else None


def _replacement(function, prefetch_line, get_next_line, between, queue_line, dataset: str, targets: List[str],
                 tensors: List[str], capacity: cst.BaseExpression) -> List[cst.BaseStatement]:
    """The lines in place of `prefetch_line` .. `queue_line`: the map over batches (when the
    queue takes other than the batch as it is), the deeper prefetch and the iterator."""
    lines: List[cst.BaseStatement] = []
    leading = list(prefetch_line.leading_lines) + list(get_next_line.leading_lines)
    if between or tensors != targets:
        name = cstutil.fresh_name(function, _MAP_NAME)
        returned = ", ".join(tensors)
        definition = cst.parse_statement("def %s(%s):\n    return %s\n" % (name, ", ".join(targets), returned))
        body = list(between) + list(definition.body.body)
        blank = cst.EmptyLine(indent=False)
        definition = definition.with_changes(body=definition.body.with_changes(body=body),
                                             leading_lines=[blank] + leading)
        lines += [definition, cst.parse_statement("%s = %s.map(%s)\n" % (dataset, dataset, name))
                  .with_changes(leading_lines=[blank])]
        leading = []
    prefetch = cst.parse_statement("%s = %s.prefetch(CAPACITY)\n" % (dataset, dataset))
    prefetch = cstutil.replace_node(prefetch, prefetch.body[0].value.args[0].value, capacity)
    queue = cstutil.single_assign(queue_line)[0].value
    iterator = cst.parse_statement("%s = %s.make_one_shot_iterator()\n" % (queue, dataset))
    comment = cst.EmptyLine(comment=cst.Comment(COMMENT))
    lines += [prefetch.with_changes(leading_lines=leading + list(queue_line.leading_lines) + [comment]), iterator]
    return lines


class _Edit(cst.CSTTransformer):
    """`q.dequeue()` becomes `q.get_next()` for the receivers (Name nodes) whose ids it holds, and
    the statements `start`..`end` of `block` become `lines`."""

    def __init__(self, receivers: Set[int], block: cst.IndentedBlock, start: int, end: int, lines):
        self.receivers, self.block, self.start, self.end, self.lines = receivers, block, start, end, lines

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if id(original_node.value) in self.receivers and original_node.attr.value == "dequeue":
            return updated_node.with_changes(attr=cst.Name("get_next"))
        return updated_node

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        if original_node is not self.block:
            return updated_node
        body = list(updated_node.body)
        return updated_node.with_changes(body=body[:self.start] + list(self.lines) + body[self.end + 1:])
