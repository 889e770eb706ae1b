"""Records one function reads and returns, handed by their caller to another function that works
on each record and batches them (`clips, total = _read(...)`; `return _batch(clips, total, ...)`).

Once the engine has turned the reading function's queue into a dataset read one record at a time
(`x = ds.make_one_shot_iterator().get_next()` followed by per-record code and `return`), this
rewrites the two functions together: the reader returns the dataset with its per-record code
mapped, in the place of the records; the batcher maps its own per-record code over the dataset it
now receives and batches it, where its tf.train.batch was. Signatures stay; what the reader returns
and what the batcher's parameter holds change, so each has exactly one call, both in one caller of
the module that only hands the records from one to the other, and no other module of the run may
mention them (api's check of `changed_helpers` sends the module back with them kept: `keep`).
Anything else is left as it is and the batch keeps the reason it had.

The batcher may take the records whole, a dict read by name (`examples['inputs']`), and may bucket
them by length (`tf.contrib.training.bucket_by_sequence_length`, one batch size or one per bucket:
bucketing.py); both functions may work inside one `with tf.name_scope(...)` / `tf.device('/cpu:0')`
block, and the per-record code may loop over the record's tensors (`for t in examples.values()`)
from a constant start (`longest = 0`). The reader's code after its read that does not touch the
record runs before its map function is defined.
"""
import dataclasses
from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from qmigrate import bucketing, cstutil, synth
from qmigrate.model import Batching
from qmigrate.names import dotted as dotted_name
from qmigrate.rules.base import Unsupported

BATCH = "tensorflow.train.batch"
BUCKET = "tensorflow.contrib.training.bucket_by_sequence_length"
# Made in a map function, these would live in the function's graph, not the program's: variables
# and placeholders are refused there, summaries and collections never reach the program's.
_NOT_IN_MAP = {"tensorflow.Variable", "tensorflow.get_variable", "tensorflow.placeholder",
               "tensorflow.train.batch", "tensorflow.train.shuffle_batch", "tensorflow.add_to_collection",
               "tensorflow.add_to_collections"}
_NOT_IN_MAP_PREFIXES = ("tensorflow.summary.", "tensorflow.contrib.summary.")


class Refused(Exception):
    """Why the returned records are not rewritten (the batch's reason)."""


def rewrite(original: cst.Module, new_module: cst.Module, analysis, tf: str, target,
            keep: Dict[str, str]) -> cst.Module:
    """`new_module` with each unfixed tf.train.batch of `original` whose records come from a
    function of the module as described above rewritten; the batch call marked fixed in
    `analysis`, both functions added to its changed_helpers. A shape seen but refused gives the
    batch a reason. Never raises."""
    for rule, call, _, _ in list(analysis.occurrences):
        if analysis.call_names.get(id(call)) not in (BATCH, BUCKET) or id(call) in analysis.fixed_calls \
                or id(call) in analysis.reasons:
            continue
        batcher = _top_function(original, call)
        if batcher is None:
            continue
        try:
            found = _Shape.find(original, new_module, batcher, call, analysis, rule)
        except Refused:
            continue  # not this shape: the explainer says where the records come from
        if found is None:
            continue
        kept = [name for name in (found.reader.name.value, found.batcher.name.value) if name in keep]
        try:
            if kept:
                raise Refused("%s() is called from other modules too: %s" % (kept[0], keep[kept[0]]))
            found.check()
            new_module = found.apply(new_module, tf, target)
        except Refused as refused:
            analysis.reasons[id(call)] = (
                "the tensors it batches are records %s() returns (read one at a time there), handed to %s() by "
                "its caller %s(); migrated, %s() would return a dataset that %s() maps and batches, but %s" % (
                    found.reader.name.value, found.batcher.name.value, found.caller.name.value,
                    found.reader.name.value, found.batcher.name.value, refused))
            continue
        analysis.fixed_calls.add(id(call))
        analysis.pipelines += 1
        analysis.changed_helpers += [found.reader.name.value, found.batcher.name.value]
    return new_module


def _top_function(module: cst.Module, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and any(n is node for n in cstutil.nodes_of(stmt, (type(node),))):
            return stmt
    return None


def _function(module: cst.Module, name: str) -> Optional[cst.FunctionDef]:
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return found[0] if len(found) == 1 else None


def body_statements(function: cst.FunctionDef, resolve) -> List[cst.BaseStatement]:
    """The statements the function works in: its own, or, when they are a docstring and one
    `with tf.name_scope(...):` or `with tf.device('/cpu:0'):` block (no `as`), those of the block,
    which only names or places the ops made there (see `_rebuilt`)."""
    if not isinstance(function.body, cst.IndentedBlock):
        raise Refused("%s() is written on one line" % function.name.value)
    scope = _scope_block(function, resolve)
    return list(scope.body.body if scope is not None else function.body.body)


def _scope_block(function: cst.FunctionDef, resolve) -> Optional[cst.With]:
    """The function's one `with` block of name_scope or of a literal CPU device (a dataset's ops
    run on the CPU), after at most a docstring."""
    *head, last = function.body.body
    if not isinstance(last, cst.With) or not isinstance(last.body, cst.IndentedBlock) or len(head) > 1:
        return None
    if head and not (isinstance(cstutil.single_small(head[0]), cst.Expr)
                     and isinstance(cstutil.single_small(head[0]).value, (cst.SimpleString, cst.ConcatenatedString))):
        return None
    for item in last.items:
        if item.asname is not None or not isinstance(item.item, cst.Call):
            return None
        name, args = resolve(item.item.func) or "", item.item.args
        if name == "tensorflow.device" and len(args) == 1 and isinstance(args[0].value, cst.SimpleString) \
                and "cpu" in args[0].value.value.lower():
            continue
        if name != "tensorflow.name_scope":
            return None
    return last


def _rebuilt(function: cst.FunctionDef, statements: Sequence[cst.BaseStatement], resolve) -> cst.FunctionDef:
    """`function` working in `statements` instead (inside its name_scope or device block, if any)."""
    scope = _scope_block(function, resolve)
    if scope is None:
        return function.with_changes(body=function.body.with_changes(body=list(statements)))
    block = scope.with_changes(body=scope.body.with_changes(body=list(statements)))
    return function.with_changes(body=function.body.with_changes(body=list(function.body.body[:-1]) + [block]))


def plain_param_names(function: cst.FunctionDef) -> List[str]:
    p = function.params
    if p.star_arg is not cst.MaybeSentinel.DEFAULT or p.kwonly_params or p.star_kwarg or p.posonly_params:
        raise Refused("%s() takes * or ** parameters" % function.name.value)
    return [param.name.value for param in p.params]


def _name_mentions(module: cst.Module, name: str) -> List[cst.Name]:
    """Every `name` in the module but the definition's own."""
    return [node for node in cstutil.nodes_of(module, (cst.Name,)) if node.value == name]


def per_record_lines(statements: Sequence[cst.BaseStatement], tainted: Set[str], resolve, owner: str
                ) -> Tuple[List[int], Set[str]]:
    """(indices of the statements that work on the records, the names they give): a statement
    that reads a record name is per-record, and so are the names it binds. Raises Refused for a
    per-record statement that is not a plain assignment or expression (or a `for` loop of those),
    that stores into an object it did not make, or that makes a variable, placeholder, summary or
    collection entry, and for a name both a per-record statement and another one bind (but the
    constant a per-record accumulation starts from, `longest = 0`: it is per-record too)."""
    tainted = set(tainted)
    indices, others = [], {}  # name: the other statements binding it
    for index, stmt in enumerate(statements):
        uses = cstutil.name_uses(stmt)
        if not set(uses.loads) & tainted:
            for name in uses.stores:
                others.setdefault(name, []).append(index)
            continue
        if not _plain(stmt) or uses.control:
            raise Refused("the per-record code of %s() holds a statement other than an assignment "
                          "(line of `%s`)" % (owner, short_text(stmt)))
        outer = set(uses.mutated) - tainted
        if outer:
            raise Refused("the per-record code of %s() stores into `%s`, which it did not make: in a map "
                          "function that store would hold tensors of the function's graph" % (owner, sorted(outer)[0]))
        for call in cstutil.calls_of(stmt):
            name = resolve(call.func) or ""
            if name in _NOT_IN_MAP or name.startswith(_NOT_IN_MAP_PREFIXES):
                raise Refused("the per-record code of %s() calls `%s`: in a map function it would be made in "
                              "the function's graph, where variables and placeholders are refused and "
                              "summaries and collections do not reach the program" % (owner, short_text(call)))
        indices.append(index)
        tainted |= set(uses.stores)
    for name in sorted(tainted & set(others)):
        starts = others[name]
        if len(starts) != 1 or not _starts_accumulation(statements, starts[0], name, indices):
            raise Refused("`%s` is bound both by per-record code of %s() and by code that is not" % (name, owner))
        indices.append(starts[0])
    return sorted(indices), tainted


def _kept_before(statements: Sequence[cst.BaseStatement], per_record: List[int], owner: str
                 ) -> List[cst.BaseStatement]:
    """The statements among `statements` that are not per-record, to run before the map function
    is defined (it reads what they bind when it is traced, after them all). Raises Refused for one
    that returns, or that mentions a name an earlier per-record statement reads (binding it again
    or changing it, the map function would read its new value)."""
    kept = []
    for index, stmt in enumerate(statements):
        if index in per_record:
            continue
        uses = cstutil.name_uses(stmt)
        if uses.control:
            raise Refused("%s() leaves or loops between reading its record and returning it (line of `%s`)" % (
                owner, short_text(stmt)))
        earlier = set()
        for i in per_record:
            if i < index:
                earlier |= set(cstutil.name_uses(statements[i]).loads)
        again = (set(uses.stores) | set(uses.loads) | set(uses.mutated)) & earlier
        if again:
            raise Refused("%s() uses `%s` after per-record code that reads it" % (owner, sorted(again)[0]))
        kept.append(stmt)
    return kept


def _plain(stmt: cst.BaseStatement) -> bool:
    """An assignment or expression line, or a `for` loop (no else) of those."""
    if isinstance(stmt, cst.For):
        return (stmt.orelse is None and stmt.asynchronous is None and isinstance(stmt.body, cst.IndentedBlock)
                and all(_plain(inner) and not isinstance(inner, cst.For) for inner in stmt.body.body))
    return isinstance(cstutil.single_small(stmt), (cst.Assign, cst.Expr, cst.AnnAssign, cst.AugAssign))


def _starts_accumulation(statements: Sequence[cst.BaseStatement], index: int, name: str, per_record: List[int]
                         ) -> bool:
    """Whether statement `index`, not per-record, is `name = <constant>` before every per-record
    statement that reads or binds `name`, and no other statement that is not per-record reads
    `name`: moved into the map function, it gives each record the same start."""
    assign = cstutil.single_assign(statements[index])
    if assign is None or not isinstance(assign[0], cst.Name) or cstutil.calls_of(assign[1]) \
            or cstutil.name_uses(assign[1]).loads:
        return False
    if any(i < index for i in per_record if name in cstutil.name_uses(statements[i]).loads
           or name in cstutil.name_uses(statements[i]).stores):
        return False
    return not any(name in cstutil.name_uses(stmt).loads for i, stmt in enumerate(statements)
                   if i != index and i not in per_record)


def _binds(node: cst.CSTNode) -> Set[str]:
    """The names a loop, `as` clause, comprehension, parameter or assignment target binds."""
    if isinstance(node, cst.Param):
        return {node.name.value}
    target = node.name if isinstance(node, cst.AsName) else getattr(node, "target", node)
    return set(cstutil.name_uses(target).stores) | {n.value for n in cstutil.nodes_of(target, (cst.Name,))}


def short_text(node: cst.CSTNode) -> str:
    """The node's first line of code (not a comment above it), cut at 60 characters."""
    lines = [line for line in cst.Module([]).code_for_node(node).strip().splitlines()
             if line.strip() and not line.strip().startswith("#")]
    text = lines[0].strip() if lines else ""
    return text if len(text) <= 60 else text[:57] + "..."


def _free_then_bound(statements: Sequence[cst.BaseStatement], params: Sequence[str]) -> Set[str]:
    """Names read by `statements` before they bind them: in a function of their own, Python would
    take them for locals not yet bound (UnboundLocalError). A `for` loop binds its target before
    its body reads it."""
    bound, early = set(params), set()

    def walk(stmts):
        for stmt in stmts:
            if isinstance(stmt, cst.For):
                early.update(set(cstutil.name_uses(stmt.iter).loads) - bound)
                bound.update(_binds(stmt))
                walk(stmt.body.body)
                continue
            uses = cstutil.name_uses(stmt)
            early.update(set(uses.loads) - bound)
            bound.update(uses.stores)
    walk(statements)
    return early & bound


def rename_rebound(statements: Sequence[cst.BaseStatement], returned: cst.BaseExpression, params: Sequence[str],
                    owner: str) -> Tuple[List[cst.BaseStatement], cst.BaseExpression]:
    """The statements of a map function to be and what it returns, where a name they read from the
    enclosing function and then bind again (`limit = tf.minimum(limit, n) if limit else n`) is
    bound as `record_<name>` from that statement on: in a function of its own, Python would take
    it for a local not yet bound. Raises Refused when the first binding is not a plain assignment."""
    statements, rebound = list(statements), _free_then_bound(statements, params)
    taken = set()
    for stmt in statements:
        uses = cstutil.name_uses(stmt)
        taken |= set(uses.loads) | set(uses.stores)
    taken |= set(cstutil.name_uses(returned).loads)
    for name in sorted(rebound):
        new = fresh_name("record_" + name, taken)
        taken.add(new)
        first = next(i for i, stmt in enumerate(statements) if name in cstutil.name_uses(stmt).stores)
        small = cstutil.single_small(statements[first])
        if not isinstance(small, cst.Assign):
            raise Refused("the per-record code of %s() binds `%s` again, a name it reads from the function, "
                          "other than by a plain assignment" % (owner, name))
        targets = [t.with_changes(target=cstutil.rename(t.target, {name: new})) for t in small.targets]
        statements[first] = statements[first].with_changes(body=[small.with_changes(targets=targets)])
        statements[first + 1:] = [cstutil.rename(stmt, {name: new}) for stmt in statements[first + 1:]]
        returned = cstutil.rename(returned, {name: new})
    return statements, returned


def iterator_dataset(value: cst.BaseExpression, resolve) -> Optional[cst.BaseExpression]:
    """D for `D.make_one_shot_iterator().get_next()` or `tf.compat.v1.data.make_one_shot_iterator(D).get_next()`."""
    if not (cstutil.plain_get_next(value) and isinstance(value.func.value, cst.Call)):
        return None
    inner = value.func.value
    if isinstance(inner.func, cst.Attribute) and inner.func.attr.value == "make_one_shot_iterator" and not inner.args:
        return inner.func.value
    if (resolve(inner.func) or "").endswith("data.make_one_shot_iterator") and len(inner.args) == 1:
        return inner.args[0].value
    return None


def fresh_name(base: str, taken: Set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = "%s_%d" % (base, n), n + 1
    return name


def _hand_over(module: cst.Module, batcher: cst.FunctionDef, position: int, param: str):
    """(caller, reader's name, the records' place among the values it returns or None, how many
    it returns) when the batcher's one call, in the caller, is handed as `param` a name bound
    once there, by `name, ... = reader(...)` (or `name = reader(...)`), and read nowhere else."""
    mentions = _name_mentions(module, batcher.name.value)
    if len(mentions) != 2:  # the def and one call
        return None
    caller = _top_function(module, next(n for n in mentions if n is not batcher.name))
    if caller is None or caller is batcher:
        return None
    call = next((c for c in cstutil.calls_of(caller) if isinstance(c.func, cst.Name)
                 and c.func.value == batcher.name.value), None)
    if call is None:
        return None
    given = None
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if (arg.keyword is None and index == position) or (arg.keyword is not None and arg.keyword.value == param):
            given = arg.value
    if not isinstance(given, cst.Name):
        return None
    uses = cstutil.name_uses(caller.body)
    if uses.loads.count(given.value) != 1 or given.value in uses.mutated:
        return None
    bindings = [node for node in cstutil.nodes_of(caller, (cst.Assign, cst.AugAssign, cst.AnnAssign))
                if any(given.value in _binds(target) for target in (
                    [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]))]
    others = [node for node in cstutil.nodes_of(caller, (cst.For, cst.AsName, cst.CompFor, cst.Param))
              if given.value in _binds(node)]
    if len(bindings) != 1 or others or not isinstance(bindings[0], cst.Assign) or len(bindings[0].targets) != 1:
        return None
    binding = bindings[0]
    if not isinstance(binding.value, cst.Call) or not isinstance(binding.value.func, cst.Name):
        return None
    target = binding.targets[0].target
    if isinstance(target, cst.Name):
        return caller, binding.value.func.value, None, None
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in target.elements):
        names = [e.value.value for e in target.elements]
        return caller, binding.value.func.value, names.index(given.value), len(names)
    return None


def engine_read(reader: cst.FunctionDef, original: cst.FunctionDef, resolve) -> Optional[int]:
    """The index of the reader's statement `x = <dataset>.make_one_shot_iterator().get_next()` that
    this run wrote (its original has no such statement); None if none."""
    before = body_statements(original, resolve)
    read = None
    for index, stmt in enumerate(body_statements(reader, resolve)):
        assign = cstutil.single_assign(stmt)
        if assign and isinstance(assign[0], cst.Name) and iterator_dataset(assign[1], resolve) is not None \
                and not any(stmt.deep_equals(old) for old in before):
            read = index
    return read


def _spreads(returned: cst.BaseExpression, work: Sequence[cst.BaseStatement], module: cst.Module,
             resolve) -> Optional[bool]:
    """Whether the reader's map function returns a tuple, whose parts tf.data hands to the next map
    function as separate arguments (True), or one structure it hands over whole (False): a dict, a
    namedtuple of the module, or a name the per-record code binds to a dict or parsed example. None
    when that cannot be seen."""
    if isinstance(returned, cst.Tuple):
        return True
    if isinstance(returned, (cst.Dict, cst.DictComp)):
        return False
    if isinstance(returned, cst.Call) and isinstance(returned.func, cst.Name):
        return False if returned.func.value in _namedtuples(module, resolve) else None
    if isinstance(returned, cst.Name):
        bound = [cstutil.single_assign(stmt) for stmt in work if returned.value in cstutil.name_uses(stmt).stores]
        if len(bound) == 1 and bound[0] is not None and isinstance(bound[0][0], cst.Name):
            value = bound[0][1]
            if isinstance(value, cst.Dict) or isinstance(value, cst.Call) and (resolve(value.func) or "") in (
                    "tensorflow.parse_single_example", "tensorflow.io.parse_single_example"):
                return False
    return None


def _namedtuples(module: cst.Module, resolve) -> Set[str]:
    """Module-level names bound once to `collections.namedtuple(...)`."""
    found, seen = set(), []
    for stmt in module.body:
        assign = cstutil.single_assign(stmt)
        if assign is None or not isinstance(assign[0], cst.Name):
            continue
        seen.append(assign[0].value)
        if isinstance(assign[1], cst.Call) and (resolve(assign[1].func) or "").endswith("namedtuple") and \
                dotted_name(assign[1].func) in ("namedtuple", "collections.namedtuple"):
            found.add(assign[0].value)
    return {name for name in found if seen.count(name) == 1}


class _Shape:
    """The reader F, the caller G and the batcher H, as found in the migrated module."""

    def __init__(self, **parts):
        self.__dict__.update(parts)

    @classmethod
    def find(cls, original: cst.Module, new_module: cst.Module, batcher_orig: cst.FunctionDef,
             call: cst.Call, analysis, rule) -> Optional["_Shape"]:
        resolve = analysis.imports.resolve
        batcher = _function(new_module, batcher_orig.name.value)
        if batcher is None or not batcher.deep_equals(batcher_orig):
            return None
        body = body_statements(batcher, resolve)
        params = plain_param_names(batcher)
        # `(a, b, ...) = records`, records a parameter read nowhere else
        unpack = None
        for index, stmt in enumerate(body):
            assign = cstutil.single_assign(stmt)
            if assign and isinstance(assign[1], cst.Name) and assign[1].value in params \
                    and isinstance(assign[0], (cst.Tuple, cst.List)) \
                    and all(isinstance(e.value, cst.Name) for e in assign[0].elements):
                unpack = index
                break
        handed = None
        if unpack is not None:
            param = cstutil.single_assign(body[unpack])[1].value
            if cstutil.name_uses(batcher.body).loads.count(param) != 1:
                return None
        else:
            # The records handed whole (a dict of tensors), read by name: the parameter the caller
            # hands the reader's records as.
            for index, name in enumerate(params):
                handed = _hand_over(new_module, batcher, index, name)
                if handed is not None:
                    param = name
                    break
            if handed is None:
                return None
        batch_index = next((i for i, stmt in enumerate(body) if any(c is call for c in cstutil.calls_of(stmt))), None)
        if batch_index is None or (unpack is not None and batch_index < unpack):
            return None
        assign, small = cstutil.single_assign(body[batch_index]), cstutil.single_small(body[batch_index])
        returned = isinstance(small, cst.Return) and small.value is call  # `return tf.train.batch(...)`
        if not returned and (assign is None or assign[1] is not call
                             or not isinstance(assign[0], (cst.Name, cst.Tuple, cst.List))):
            return None
        handed = handed or _hand_over(new_module, batcher, params.index(param), param)
        if handed is None:
            return None
        caller, reader_name, slot, arity = handed
        reader = _function(new_module, reader_name)
        reader_orig = _function(original, reader_name)
        if reader is None or reader_orig is None or len(_name_mentions(new_module, reader_name)) != 2:
            return None
        read = engine_read(reader, reader_orig, resolve)
        if read is None:
            return None
        return cls(module=new_module, reader=reader, caller=caller, batcher=batcher, call=call, rule=rule,
                   resolve=resolve, bucket=analysis.call_names.get(id(call)) == BUCKET,
                   batch_index=batch_index, unpack=unpack, param=param, slot=slot, arity=arity, read=read)

    def check(self) -> None:
        """Raises Refused unless both functions can be written again as described."""
        resolve = self.resolve
        reader_body = body_statements(self.reader, self.resolve)
        rest = reader_body[self.read + 1:]
        ret = cstutil.single_small(rest[-1]) if rest else None
        if not isinstance(ret, cst.Return) or ret.value is None:
            raise Refused("%s() does not end by returning its records" % self.reader.name.value)
        record = cstutil.single_assign(reader_body[self.read])[0].value
        work, tainted = per_record_lines(rest[:-1], {record}, resolve, self.reader.name.value)
        self.reader_kept = _kept_before(rest[:-1], work, self.reader.name.value)
        value = ret.value
        if self.slot is None:
            returned = value
        else:
            if not (isinstance(value, cst.Tuple) and len(value.elements) == self.arity):
                raise Refused("%s() returns something else than the %d values its caller unpacks" % (
                    self.reader.name.value, self.arity))
            returned = value.elements[self.slot].value
            for index, element in enumerate(value.elements):
                if index != self.slot and set(cstutil.name_uses(element).loads) & tainted:
                    raise Refused("%s() returns per-record values beside the records" % self.reader.name.value)
        work, returned = rename_rebound([rest[i] for i in work], returned, [record], self.reader.name.value)
        self.record, self.returned, self.reader_work = record, returned, work
        self.reader_return = ret
        spread = _spreads(returned, work, self.module, resolve)
        if spread is None:
            raise Refused("%s() returns `%s` as its records, whose structure qmigrate does not see (a tuple's "
                          "parts reach a map function as arguments of their own, any other structure as one)" % (
                              self.reader.name.value, short_text(returned)))
        if self.unpack is None and (spread or isinstance(returned, cst.Call)):
            raise Refused("%s() reads `%s` as one dict of tensors, but %s() returns `%s`" % (
                self.batcher.name.value, self.param, self.reader.name.value, short_text(returned)))
        # The batcher
        body = body_statements(self.batcher, self.resolve)
        self.start = self.unpack + 1 if self.unpack is not None else 0
        between = body[self.start:self.batch_index]
        if any(not isinstance(stmt, (cst.SimpleStatementLine, cst.For)) for stmt in between):
            raise Refused("%s() works on the records inside a compound statement" % self.batcher.name.value)
        unpacked = set(cstutil.name_uses(body[self.unpack]).stores) if self.unpack is not None else {self.param}
        work, tainted = per_record_lines(between, unpacked, resolve, self.batcher.name.value)
        after = body[self.batch_index + 1:]
        late = set(cstutil.name_uses(cst.IndentedBlock(body=after)).loads) & tainted if after else set()
        if late:
            raise Refused("%s() reads the per-record `%s` after the batch" % (self.batcher.name.value, sorted(late)[0]))
        map_statements = ([body[self.unpack]] if self.unpack is not None else []) + [between[i] for i in work]
        # The map function runs where the batch was: what it reads must not be bound again on the way.
        read = set(cstutil.name_uses(cst.IndentedBlock(body=map_statements)).loads)
        for index, stmt in enumerate(between):
            again = set(cstutil.name_uses(stmt).stores) & read if work and index > work[0] and index not in work \
                else set()
            if again:
                raise Refused("`%s`, which its per-record code reads, is bound again before the batch" % sorted(
                    again)[0])
        try:
            bound = self.rule.bind(self.call)
        except Unsupported as unsupported:
            raise Refused(str(unsupported))
        tensors = bound.get("tensors")
        self.kind = "tuple" if isinstance(tensors, (cst.List, cst.Tuple)) else "dict"
        if isinstance(tensors, cst.Name) and tensors.value == self.param and self.unpack is None:
            pass  # the records themselves, a dict
        elif isinstance(tensors, cst.Name) and tensors.value in tainted:
            # `batch_tensors = {...}` in the per-record code: the map function returns that dict
            made = [stmt for stmt in map_statements if tensors.value in cstutil.name_uses(stmt).stores
                    or tensors.value in cstutil.name_uses(stmt).mutated]
            assign = cstutil.single_assign(made[-1]) if len(made) == 1 else None
            if assign is None or not isinstance(assign[1], cst.Dict):
                raise Refused("it batches `%s`, which the per-record code does not make as one dict" % tensors.value)
        elif tensors is None:  # (a call with its tensors argument missing: TensorFlow would refuse it)
            raise Refused("its call passes no tensors to batch")
        elif not isinstance(tensors, (cst.Dict, cst.List, cst.Tuple)):
            raise Refused("it batches `%s`, not a literal list or dict of tensors" % short_text(tensors))
        if isinstance(tensors, (cst.List, cst.Tuple)) and any(isinstance(e, cst.StarredElement)
                                                              for e in tensors.elements):
            raise Refused("it batches a starred list")
        if isinstance(tensors, (cst.List, cst.Tuple)) and len(tensors.elements) == 1 and not self.bucket:
            raise Refused("it batches a list of one tensor, for which tf.train.batch gives that tensor alone")
        for key in ("enqueue_many", "shapes", "shared_name"):
            if key in bound and not (isinstance(bound[key], cst.Name) and bound[key].value in ("False", "None")):
                raise Refused("it passes `%s=`" % key)
        flags = {}
        for key in ("dynamic_pad", "allow_smaller_final_batch"):
            node = bound.get(key)
            if node is None:
                flags[key] = False
            elif isinstance(node, cst.Name) and node.value in ("True", "False"):
                flags[key] = node.value == "True"
            else:
                raise Refused("its `%s=` is not a literal True or False" % key)
        per_record = ("tensors", "input_length", "keep_input") if self.bucket else ("tensors",)
        for key, node in bound.items():
            if key not in per_record and set(cstutil.name_uses(node).loads) & tainted:
                raise Refused("its `%s=` is computed from the records" % key)
        code = cst.Module([]).code_for_node
        threads = bound.get("num_threads")
        threads = code(threads) if threads is not None else None
        if threads == "1":
            threads = None
        if "batch_size" not in bound:
            raise Refused("its batching is given no batch_size")
        self.batching = Batching(code(bound["batch_size"]), num_threads=threads,
                                 allow_smaller_final_batch=flags["allow_smaller_final_batch"],
                                 dynamic_pad=flags["dynamic_pad"])
        self.length = self.keep = None
        if self.bucket:
            self._bucketing(bound)
            parts = [tensors, bound["input_length"]] + ([bound["keep_input"]] if self.keep is not None else [])
            self.map_statements, renamed = rename_rebound(
                map_statements, cst.Tuple([cst.Element(part) for part in parts]), [self.param], self.batcher.name.value)
            renamed = [element.value for element in renamed.elements]
            self.tensors, self.length = renamed[:2]
            self.keep = renamed[2] if self.keep is not None else None
        else:
            self.map_statements, self.tensors = rename_rebound(map_statements, tensors, [self.param],
                                                                 self.batcher.name.value)
        self.map_params = [self.param]
        if spread:
            # tf.data hands a tuple's parts to the map function as its arguments: they take the
            # names the batcher unpacked them into.
            target = cstutil.single_assign(self.map_statements[0])[0]
            if len(target.elements) != len(returned.elements):
                raise Refused("%s() unpacks %d values from records of %d" % (
                    self.batcher.name.value, len(target.elements), len(returned.elements)))
            self.map_params = [e.value.value for e in target.elements]
            self.map_statements = self.map_statements[1:]
            if not self.map_statements and not self.bucket:
                raise Refused("%s() does no per-record work" % self.batcher.name.value)
        self.kept_between = [stmt for i, stmt in enumerate(between) if i not in work]

    def _bucketing(self, bound) -> None:
        """bucket_by_sequence_length's arguments: its boundaries, its batch size (`sizes_kind`
        "one", "list" of one per bucket, or "either" when a name or item of names could hold
        either, chosen by isinstance where the batching was made) and keep_input. Raises Refused."""
        for key in ("input_length", "bucket_boundaries", "batch_size"):
            if key not in bound:
                raise Refused("it has no `%s` argument" % key)
        sizes = bound["batch_size"]
        if isinstance(sizes, (cst.List, cst.Tuple, cst.ListComp)):
            self.sizes_kind = "list"
        elif isinstance(sizes, cst.Integer):
            self.sizes_kind = "one"
        elif isinstance(sizes, (cst.Name, cst.Attribute, cst.Subscript)) and not cstutil.calls_of(sizes):
            self.sizes_kind = "either"
        else:
            raise Refused("its `batch_size=` is computed (`%s`): whether it gives one size or one per bucket, "
                          "which batch differently, is not seen" % short_text(sizes))
        keep = bound.get("keep_input")
        if keep is not None and not (isinstance(keep, cst.Name) and keep.value in ("True", "None")):
            self.keep = keep
        code = cst.Module([]).code_for_node
        self.batching = dataclasses.replace(self.batching, bucket_boundaries=code(bound["bucket_boundaries"]))

    def apply(self, module: cst.Module, tf: str, target) -> cst.Module:
        config = module.config_for_parsing
        code = cst.Module([]).code_for_node
        # The reader: its per-record code becomes a map function; it returns the mapped dataset.
        reader_body = body_statements(self.reader, self.resolve)
        read_value = cstutil.single_assign(reader_body[self.read])[1]
        dataset = code(iterator_dataset(read_value, self.resolve))
        taken = set(cstutil.name_uses(self.reader).loads) | set(cstutil.name_uses(self.reader).stores)
        parse = fresh_name("parse_record", taken)
        parse_def = nested_function(parse, [self.record], self.reader_work, self.returned, config)
        mapped = cst.parse_expression("%s.map(%s)" % (dataset, parse), config)
        if self.slot is None:
            new_value = mapped
        else:
            elements = list(self.reader_return.value.elements)
            elements[self.slot] = elements[self.slot].with_changes(value=mapped)
            new_value = self.reader_return.value.with_changes(elements=elements)
        new_return = reader_body[-1].with_changes(
            body=[self.reader_return.with_changes(value=new_value)], leading_lines=[])
        read_stmt = reader_body[self.read]
        parse_def = blank_statement(parse_def.with_changes(leading_lines=list(read_stmt.leading_lines)))
        new_reader_body = reader_body[:self.read] + self.reader_kept + [parse_def, blank_statement(new_return)]
        reader = _rebuilt(self.reader, new_reader_body, self.resolve)
        # The batcher: its per-record code maps the dataset it is handed, then the batch.
        body = body_statements(self.batcher, self.resolve)
        taken = set(cstutil.name_uses(self.batcher).loads) | set(cstutil.name_uses(self.batcher).stores)
        prepare = fresh_name("prepare_record", taken)
        ds = fresh_name("dataset", taken | {prepare})
        if self.kind == "dict":
            element, kind = code(self.tensors), "dict"
        else:
            items = [code(e.value) for e in self.tensors.elements]
            element, kind = ", ".join(items) + ("," if len(items) == 1 else ""), "tuple"
            if self.bucket:
                element, kind = ", ".join(items), "single" if len(items) == 1 else "tuple"
        if self.bucket:  # the record's length goes with it (bucketing.py), and its keep_input
            kind, element = bucketing.element(code(self.length), kind, element)
            if self.keep is not None:
                element = "(%s), %s" % (element, code(self.keep))
        prepare_def = nested_function(prepare, self.map_params, self.map_statements, element, config)
        threads = ", num_parallel_calls=%s" % self.batching.num_threads if self.batching.num_threads else ""
        lines = ["%s = %s.map(%s%s)" % (ds, self.param, prepare, threads)]
        if self.keep is not None:  # the queue took only the records whose keep_input held
            lines += ["%s = %s.filter(lambda element, keep: keep)" % (ds, ds),
                      "%s = %s.map(lambda element, keep: element)" % (ds, ds)]
        if self.bucket:
            lines.append(self._bucket_batches(ds, tf, target))
        else:
            lines.append("%s = %s.%s" % (ds, ds, synth._batch(ds, self.batching, tf, target)))
        lines.append("%s = %s.prefetch(1)" % (ds, ds))
        batch_stmt = body[self.batch_index]
        small = cstutil.single_small(batch_stmt)
        next_element = "%s.get_next()" % synth._one_shot(ds, tf, target)
        if self.bucket:
            next_element = bucketing.consumed(next_element, kind, None if isinstance(small, cst.Return)
                                              else small.targets[0].target)
        elif kind == "tuple" and (isinstance(small, cst.Return) or isinstance(small.targets[0].target, cst.Name)):
            next_element = "list(%s)" % next_element  # tf.train.batch gave a list
        consumed = batch_stmt.with_changes(
            body=[small.with_changes(value=cst.parse_expression(next_element, config))], leading_lines=[])
        stages = [cst.parse_statement(line + "\n", config) for line in lines]
        first_work = self.map_statements[0]
        prepare_def = prepare_def.with_changes(leading_lines=list(first_work.leading_lines))
        head = body[:self.unpack] if self.unpack is not None else []
        if head or self.kept_between:
            prepare_def = blank_statement(prepare_def)
        new_body = (head + self.kept_between + [prepare_def, blank_statement(stages[0])] + stages[1:] + [consumed]
                    + body[self.batch_index + 1:])
        batcher = _rebuilt(self.batcher, new_body, self.resolve)
        return module.with_changes(body=[reader if stmt is self.reader else batcher if stmt is self.batcher else stmt
                                         for stmt in module.body])

    def _bucket_batches(self, ds: str, tf: str, target) -> str:
        """The statement grouping `ds` by bucket of lengths, each window batched as the queue
        batched a bucket: by one size, by the size of its bucket, or (`sizes_kind` "either") by
        what the batch size holds when the pipeline is made, as bucket_by_sequence_length decided
        then (`if isinstance(sizes, (list, tuple)):`)."""
        def batch_of(window, size=None):
            batching = dataclasses.replace(self.batching, batch_size=size) if size else self.batching
            return "%s.%s" % (window, synth._batch(window, batching, tf, target,
                                                   shapes=bucketing.window_shapes(window, tf, target)))
        sizes = self.batching.batch_size
        one = "%s = %s.%s" % (ds, ds, bucketing.bucket_stage(self.batching, tf, target, batch_of))
        per_bucket = "%s = %s.%s" % (ds, ds, bucketing.per_bucket_stage(self.batching.bucket_boundaries, sizes, tf,
                                                                         target, batch_of))
        if self.sizes_kind == "one":
            return one
        if self.sizes_kind == "list":
            return per_bucket
        return synth._when("isinstance(%s, (list, tuple))" % sizes, [per_bucket], [one])


def nested_function(name: str, params: Sequence[str], statements: Sequence[cst.BaseStatement], returns,
            config) -> cst.FunctionDef:
    """`def name(params): statements; return returns` (`returns` an expression node, kept as written,
    or its source)."""
    template = cst.parse_statement("def %s(%s):\n    return %s\n" % (
        name, ", ".join(params), returns if isinstance(returns, str) else "None"), config)
    if not isinstance(returns, str):
        last = template.body.body[-1]
        template = template.with_changes(body=template.body.with_changes(body=[
            last.with_changes(body=[last.body[0].with_changes(value=returns)])]))
    statements = list(statements)
    if statements:
        first = statements[0]
        statements[0] = first.with_changes(leading_lines=[line for line in first.leading_lines if line.comment])
    return template.with_changes(body=template.body.with_changes(body=statements + list(template.body.body)))


def blank_statement(stmt: cst.BaseStatement) -> cst.BaseStatement:
    """`stmt` after a blank line (the nested function before it ends there)."""
    return stmt.with_changes(leading_lines=[cst.EmptyLine(indent=False)] + [l for l in stmt.leading_lines if l.comment])

