"""Helper functions that hold one stage of a pipeline, as the CIFAR-10 tutorial writes them.

- A *reader helper* `read_cifar10(filename_queue)` makes a reader, reads the queue it was given,
  and returns what it parsed. Migrated, it takes the record instead of the queue.
- A *forwarding reader helper* `read_and_preprocess(filename_queue, size)` passes its queue on to
  a reader helper (or to another forwarding one) and works on what that returns. Migrated, it
  takes the record and passes the record on.
- A *record-source helper* `load_examples(files, kind)` makes the producer and the reader itself,
  and returns what it parsed from one record; its caller batches. Migrated, it takes the record
  (and the parameters its per-record code reads); the producer and reader go to the caller.
- A *batching helper* `_generate_image_and_label_batch(image, label, ..., shuffle)` batches the
  tensors it was given (in one statement, or in an `if flag:`/`else:` pair) and post-processes the
  batch. Migrated, it takes the batch instead: its batching statements go to each caller's chain.

Their arguments are moved into the caller's scope by substitution: the helper's parameters become
the call's argument expressions, its locals their (single, earlier) definitions.
"""
import builtins
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import batch_down, blocks, cstutil, lookup_tables
from qmigrate.names import ImportMap, dotted
from qmigrate.rules import BATCHERS, PRODUCERS, READERS, rule_for


_BUILTINS = frozenset(dir(builtins))


class NotMovable(Exception):
    """An expression of a helper cannot be written in its caller's scope; the text says why."""


@dataclass(frozen=True)
class ReaderHelper:
    """A function that reads the queue it is given, itself or through the helper it passes it to.

    A forwarding helper (`via` set) has the innermost helper's reader rule and call; its
    `reader_stmt` and `read_stmt` are both the statement that calls the helper in `via`.
    """

    function: cst.FunctionDef
    queue_param: str
    value_name: str  # the record parameter's name once migrated
    reader_rule: type
    reader_call: cst.Call
    reader_stmt: cst.BaseStatement
    read_stmt: cst.BaseStatement
    via: Optional[Tuple["ReaderHelper", cst.Call]] = None  # the helper it passes the queue to, and that call
    # Reads of the queue parameter that only pick the graph of a name scope (`tf.name_scope(None,
    # 'read', [filename_queue])`): not uses of the queue (scope_values); migrated, they name the record.
    scope_uses: int = 0

    @property
    def name(self) -> str:
        return self.function.name.value


@dataclass(frozen=True)
class RecordSource:
    """A function whose first statements make a producer, a reader and read one record; the rest
    of its body parses that record and returns what it parsed."""

    function: cst.FunctionDef
    value_name: str  # the record's name, the migrated function's first parameter
    producer_rule: type
    producer_call: cst.Call
    reader_rule: type
    reader_call: cst.Call
    removable: Tuple[cst.BaseStatement, ...]  # producer, reader (unless made in the read) and read
    dropped_params: Tuple[str, ...]  # parameters only the producer and reader read
    foreign: bool = False  # a method of a class of another module (engine.imported_record_source)
    foreign_names: Tuple[str, ...] = ()  # then: its module's names the moved arguments may read (TensorFlow's)
    # A method reading a reader and queue the object holds (held_sources.py): their bindings in
    # __init__ (class_attrs.Binding), the queue's first; producer_call and reader_call are their values.
    held: Optional[Tuple] = None

    @property
    def name(self) -> str:
        return self.function.name.value


@dataclass(frozen=True)
class BatchSite:
    rule: type
    call: cst.Call
    statement: cst.BaseStatement


@dataclass(frozen=True)
class BatchHelper:
    function: cst.FunctionDef
    tensor_params: Tuple[str, ...]  # in the order the batching call lists them
    targets: Tuple[str, ...]  # the names the batch is assigned to
    sites: Tuple[BatchSite, ...]  # one, or the two arms of `if flag: ... else: ...`
    flag: Optional[str]  # the parameter that picks the arm
    removable: Tuple[cst.BaseStatement, ...]  # the statements the migrated helper drops
    returns: bool = False  # it returns the batching call itself (batch_down.py)
    foreign: bool = False  # defined in another module (handed_down.py): its module's names mean nothing here
    row: Optional[str] = None  # the local list it batches, built in Python from its parameters (built_rows.py)
    row_statement: Optional[cst.BaseStatement] = None  # the statement that builds it, kept when migrated
    listed: Tuple[str, ...] = ()  # parameters that may be lists of tensors (tested with isinstance)

    def tensors_only_batched(self) -> bool:
        """Whether its tensor parameters are read by nothing but the batching (or the row)."""
        loads = Counter(cstutil.name_uses(self.function.body).loads)
        if self.row is None:
            return all(loads[p] == len(self.sites) for p in self.tensor_params)
        in_row = Counter(cstutil.name_uses(self.row_statement).loads)
        return loads[self.row] == len(self.sites) and all(loads[p] == in_row[p] for p in self.tensor_params)


def _params(function: cst.FunctionDef) -> List[cst.Param]:
    return list(function.params.params)


def _call_rule(expr, imports: ImportMap, family):
    if isinstance(expr, cst.Call):
        rule = rule_for(imports.resolve(expr.func))
        if rule in family:
            return rule
    return None


def plain_read_call(value):
    """`value` in the positional form of a `.read(queue)` / `.read_up_to(queue, num_records)`
    method call when it is one: without a `name=` keyword argument (the name only names the read
    op, which the migration removes with the reader), and with `queue=` and `num_records=` given by
    keyword moved to their places (`reader.read(queue=q)` is `reader.read(q)`). Any other call, or
    one whose arguments do not fit those signatures, is returned as it is."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in ("read", "read_up_to")):
        return value
    params = ("queue",) if value.func.attr.value == "read" else ("queue", "num_records")
    kept = [arg for arg in value.args if not (arg.keyword is not None and arg.keyword.value == "name")]
    positional = [arg for arg in kept if arg.keyword is None]
    by_keyword = {arg.keyword.value: arg for arg in kept if arg.keyword is not None}
    if (any(arg.star for arg in kept) or len(positional) > len(params)
            or set(by_keyword) - set(params[len(positional):])):
        return value
    if not by_keyword and len(kept) == len(value.args):
        return value
    args = positional + [by_keyword[param].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
                         for param in params[len(positional):] if param in by_keyword]
    if not args:
        return value
    return value.with_changes(args=[arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in args])


def find_reader_helper(function: cst.FunctionDef, imports: ImportMap) -> Optional[ReaderHelper]:
    param_names = [p.name.value for p in _params(function)]
    if not isinstance(function.body, cst.IndentedBlock) or lookup_tables.lookup_in(function.body, imports.resolve, None):
        return None  # (a table in the code that would become per-record: lookup_tables)
    leaves = blocks.flatten(function.body.body, function.body.body)
    readers = {}
    for leaf in leaves:
        assign = cstutil.single_assign(leaf.original)
        if assign is None:
            continue
        target, value = assign
        rule = _call_rule(value, imports, READERS)
        if rule and isinstance(target, cst.Name):
            readers[target.value] = (rule, value, leaf.original)
            continue
        value = plain_read_call(value)
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "read"
                and isinstance(value.func.value, cst.Name) and value.func.value.value in readers
                and len(value.args) == 1 and isinstance(value.args[0].value, cst.Name)
                and value.args[0].value.value in param_names
                and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
                and isinstance(target.elements[1].value, cst.Name)):
            rule, call, reader_stmt = readers[value.func.value.value]
            queue = value.args[0].value.value
            return ReaderHelper(function, queue, target.elements[1].value.value,
                                rule, call, reader_stmt, leaf.original,
                                scope_uses=len(scope_values(function, queue, imports)))
    return None


# Scope makers whose `values` argument only picks the graph the scope opens in (each value must
# be of the default graph, or of one graph): (full name, the argument's position, its keyword).
_SCOPE_VALUES = {"tensorflow.name_scope": (2, "values"), "tensorflow.variable_scope": (2, "values"),
                 "tensorflow.op_scope": (0, "values")}


def scope_values(function: cst.FunctionDef, param: str, imports: ImportMap) -> List[cst.Name]:
    """The reads of `param` in `function` that stand as elements of a list or tuple literal given
    as a scope's `values` (`with tf.name_scope(None, 'read', [param]):`).

    Such a read does not use the queue: TensorFlow only takes the graph of the values to open the
    scope in (and raises when they come from two graphs). A record read from the queue is of the
    same graph, so naming the record there instead opens the same scope (its default name too)."""
    found = []
    for call in cstutil.calls_of(function.body):
        where = _SCOPE_VALUES.get(imports.resolve(call.func))
        if where is None:
            continue
        position, keyword = where
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        values = [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword]
        if len(positional) > position:
            values.append(positional[position].value)
        for value in values:
            if isinstance(value, (cst.List, cst.Tuple)):
                found += [element.value for element in value.elements
                          if isinstance(element.value, cst.Name) and element.value.value == param
                          and not isinstance(element, cst.StarredElement)]
    return found


def queue_reads(helper: ReaderHelper, loads: Counter) -> int:
    """How many times the helper's body reads its queue parameter (`loads`: the body's name loads),
    leaving out the reads that only pick a scope's graph (scope_values)."""
    return loads[helper.queue_param] - helper.scope_uses


def find_record_source(function: cst.FunctionDef, imports: ImportMap, method: bool = False) -> Optional[RecordSource]:
    """`function` when its body (after a docstring) opens with `q = <producer>(...)`, `r = <Reader>(...)`
    and `_, v = r.read(q)` (or `_, v = <Reader>(...).read(q)`) and ends `return <value>`, holding no
    other return, yield or loop control, and reading neither q nor r again.

    The opening may hold the reader before the producer, and plain assignments of the values only
    the producer and reader read (`num_epochs = None if training else 1`): each such name is read
    once, by them, and never after the read; it leaves with them (move_expression writes its value
    where the producer goes). `method`: `function` is a method, whose first parameter (the object)
    it keeps whatever its parsing reads."""
    if not isinstance(function.body, cst.IndentedBlock) or lookup_tables.lookup_in(function.body, imports.resolve, None):
        return None
    body = list(function.body.body)
    if body and cstutil.is_docstring(body[0]):
        body = body[1:]
    if len(body) < 3 or not isinstance(cstutil.single_small(body[-1]), cst.Return):
        return None
    opening = _source_opening(body, imports)
    if opening is None:
        return None
    producer_stmt, producer_rule, queue, reader_stmt, reader_rule, read_stmt, plumbing = opening
    first = cstutil.single_assign(producer_stmt)
    reader_name, reader_call = None, None
    if reader_stmt is not None:
        second = cstutil.single_assign(reader_stmt)
        reader_name, reader_call = second[0].value, second[1]
    target, value = cstutil.single_assign(read_stmt)
    value = plain_read_call(value)
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "read"
            and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star
            and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == queue):
        return None
    made = value.func.value
    if reader_name is None:  # `tf.TFRecordReader().read(q)`
        reader_rule = _call_rule(made, imports, READERS)
        if reader_rule is None:
            return None
        reader_call = made
    elif not (isinstance(made, cst.Name) and made.value == reader_name):
        return None
    if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
            and all(isinstance(e.value, cst.Name) for e in target.elements)):
        return None
    key, record = (e.value.value for e in target.elements)
    # A value assigned before the producer that neither it nor the reader reads (`result =
    # Record()`, the object the parsing fills in) is the parsing's own: it stays in the source.
    opening_loads = set(cstutil.name_uses(cst.IndentedBlock(
        body=[stmt for stmt in (producer_stmt, reader_stmt, read_stmt) if stmt is not None])).loads)
    plumbing = tuple(stmt for stmt in plumbing if cstutil.single_assign(stmt)[0].value in opening_loads
                     or not _prelude_assign(stmt, plumbing))
    removable = tuple(stmt for stmt in body if stmt in (producer_stmt, reader_stmt, read_stmt) or stmt in plumbing)
    rest = cst.IndentedBlock(body=[stmt for stmt in body if stmt not in removable])
    uses = cstutil.name_uses(rest)
    if uses.control - {"return"} or len(cstutil.own_returns(rest)) != 1:
        return None
    if {queue, reader_name} & set(uses.loads) or (key != "_" and key in uses.loads) or record == key:
        return None
    # A value assigned for the producer or reader is read once, by them, and by nothing after.
    plumbing_loads = Counter(cstutil.name_uses(cst.IndentedBlock(body=list(removable))).loads)
    param_names = {p.name.value for p in _params(function)}
    for stmt in plumbing:
        name = cstutil.single_assign(stmt)[0].value
        if plumbing_loads[name] != 1 or name in uses.loads or name in uses.stores or name in param_names \
                or {queue, reader_name} & set(cstutil.name_uses(stmt).loads):
            return None
    # Parameters the producer and reader read, and nothing else, leave with them.
    plumbing_names = set(plumbing_loads)
    params = _params(function)
    if function.params.star_arg is not cst.MaybeSentinel.DEFAULT or function.params.kwonly_params or \
            function.params.star_kwarg is not None or function.params.posonly_params:
        return None
    if method and not params:
        return None
    kept = {params[0].name.value} if method else set()
    dropped = tuple(p.name.value for p in params
                    if p.name.value in plumbing_names and p.name.value not in uses.loads and p.name.value not in kept)
    if record in {p.name.value for p in params}:
        return None
    return RecordSource(function, record, producer_rule, first[1], reader_rule, reader_call, removable, dropped)


def _prelude_assign(stmt: cst.BaseStatement, plumbing) -> bool:
    """Whether `name = value`, before the producer, is kept in a migrated record source: what it
    reads is no other opening assignment's (those leave with the producer)."""
    others = {cstutil.single_assign(other)[0].value for other in plumbing if other is not stmt}
    return not set(cstutil.name_uses(stmt).loads) & others


def _source_opening(body: List[cst.BaseStatement], imports: ImportMap):
    """(producer statement, its rule, the queue's name, reader statement or None, its rule, read
    statement, plumbing assignments) for the statements of `body` up to its first `.read(...)`:
    one `q = <producer>(...)`, at most one `r = <Reader>(...)`, and plain `name = value`
    assignments, after asserts (which stay in the function: they read no queue); None for any
    other opening."""
    producer = reader = None
    plumbing = []
    for stmt in body[:-1]:
        if isinstance(stmt, cst.ClassDef) and not any(
                _call_rule(call, imports, PRODUCERS + READERS) for call in cstutil.calls_of(stmt)):
            continue  # a class for the parsed record (`class Record(object): pass`): stays in the source
        if isinstance(cstutil.single_small(stmt), cst.Assert) and not (producer or reader):
            continue  # a check of the arguments (`assert os.path.exists(path)`): it stays, and runs first
        assign = cstutil.single_assign(stmt)
        if assign is None or not isinstance(assign[0], (cst.Name, cst.Tuple, cst.List)):
            return None
        target, value = assign
        read = plain_read_call(value)
        if isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute) and read.func.attr.value == "read":
            if producer is None or not isinstance(target, (cst.Tuple, cst.List)):
                return None
            return producer + (reader[0] if reader else None, reader[1] if reader else None, stmt, tuple(plumbing))
        if not isinstance(target, cst.Name):
            return None
        producer_rule = _call_rule(value, imports, PRODUCERS)
        reader_rule = _call_rule(value, imports, READERS)
        if producer_rule is not None:
            if producer is not None:
                return None
            producer = (stmt, producer_rule, target.value)
        elif reader_rule is not None:
            if reader is not None:
                return None
            reader = (stmt, reader_rule)
        elif cstutil.calls_of(value) and any(_call_rule(call, imports, PRODUCERS + READERS)
                                             for call in cstutil.calls_of(value)):
            return None
        else:
            plumbing.append(stmt)
    return None


def source_arguments(source: RecordSource, call: cst.Call, module_names: set, shadowed: frozenset = frozenset()):
    """(producer's arguments, reader's arguments), by parameter, written for the calling scope."""
    arguments = bind_call(source.function, call)
    before = source.removable[-1]  # the read: every value assigned for the producer and reader reaches it

    def moved(rule, node):
        return {name: move_expression(value, source.function, before, arguments, module_names, shadowed=shadowed)
                for name, value in rule.bind(node).items()}

    return moved(source.producer_rule, source.producer_call), moved(source.reader_rule, source.reader_call)


def source_call(source: RecordSource, call: cst.Call, record: str, callee: str,
                on_object: Optional[cst.BaseExpression] = None, static: bool = False) -> cst.Call:
    """The caller's call of the migrated source: the record first, then the arguments of the
    parameters it keeps, each as it was passed (positional ones keep their order). `on_object`:
    the source is a method, called `<on_object>.<callee>(...)` (`call` is that call, the object
    not among its arguments; the object a name or any expression, `io.reader`); `static`: a static
    one (no parameter takes the object)."""
    params = [p.name.value for p in _params(source.function)][1 if on_object is not None and not static else 0:]
    args = [cst.Arg(cst.Name(record))]
    for position, arg in enumerate(call.args):
        if arg.keyword is None and position >= len(params):
            raise NotMovable("it is called with more arguments than it takes")
        param = arg.keyword.value if arg.keyword is not None else params[position]
        if param not in source.dropped_params:
            args.append(arg)
    if args[-1].comma is not cst.MaybeSentinel.DEFAULT and len(args) > 1:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    func = cst.Attribute(on_object, cst.Name(callee)) if on_object is not None else cst.Name(callee)
    return call.with_changes(func=func, args=args)


def migrate_record_source(function: cst.FunctionDef, source: RecordSource, method: bool = False) -> cst.FunctionDef:
    """The source taking the record (and the parameters its parsing reads), without producer and
    reader; a method (`method`) takes it after the object."""
    original = source.function
    gone = {leaf.path for leaf in blocks.flatten(original.body.body, original.body.body)
            if leaf.original in source.removable}
    body = blocks.rebuild(function.body.body, {}, gone)
    kept = [p for p in function.params.params if p.name.value not in source.dropped_params]
    head, kept = (kept[:1], kept[1:]) if method else ([], kept)
    params = head + [cst.Param(cst.Name(source.value_name))] + kept
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    params = [param if isinstance(param.comma, cst.Comma) else param.with_changes(comma=comma)
              for param in params[:-1]] + [params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    body = redocument(body, "", source.value_name, source.dropped_params)  # no queue parameter to replace
    return function.with_changes(params=function.params.with_changes(params=params),
                                 body=function.body.with_changes(body=body))


def find_forwarding_helper(function: cst.FunctionDef, reader_helpers: Dict[str, ReaderHelper]
                           ) -> Optional[ReaderHelper]:
    """`function` when a statement of its body (straight-line, `with`s opened) is
    `x = helper(..., queue_param, ...)` for a reader helper of `reader_helpers`: it reads its
    queue parameter through that helper. The caller checks the parameter has no other use."""
    def callee(call: cst.Call):
        if isinstance(call.func, cst.Name):
            return reader_helpers.get(call.func.value), call
        return None, call

    return _forwarding(function, callee)


def find_forwarding_method(method: cst.FunctionDef, cls_name: str, method_helpers: Dict[str, ReaderHelper]
                           ) -> Optional[ReaderHelper]:
    """find_forwarding_helper for a method of class `cls_name` whose statement is
    `x = self.reader_method(..., queue_param, ...)`, a reader method (`Class.method` in
    `method_helpers`) of the same class."""
    self_name = method.params.params[0].name.value

    def callee(call: cst.Call):
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == self_name):
            return None, call
        # bound like the function it is, the object first
        return method_helpers.get("%s.%s" % (cls_name, func.attr.value)), call.with_changes(
            func=cst.Name(func.attr.value), args=[cst.Arg(cst.Name(self_name))] + list(call.args))

    return _forwarding(method, callee)


def _forwarding(function: cst.FunctionDef, callee) -> Optional[ReaderHelper]:
    """The forwarding helper `function` is, when `callee(call)` gives (the reader helper, the call
    as a call of its function) for a call of its body that passes it a parameter as its queue."""
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    params = {p.name.value for p in _params(function)}
    for leaf in blocks.flatten(function.body.body, function.body.body):
        assign = cstutil.single_assign(leaf.original)
        value = assign[1] if assign is not None else None
        if not isinstance(value, cst.Call):
            continue
        inner, bound = callee(value)
        if inner is None or inner.function is function:
            continue
        try:
            queue = bind_call(inner.function, bound).get(inner.queue_param)
        except NotMovable:
            continue
        if isinstance(queue, cst.Name) and queue.value in params:
            return ReaderHelper(function, queue.value, _record_param(function, inner.value_name), inner.reader_rule,
                                inner.reader_call, leaf.original, leaf.original, via=(inner, value))
    return None


def _record_param(function: cst.FunctionDef, preferred: str) -> str:
    """A name for the record parameter that no name of the function (read or bound) already has."""
    uses = cstutil.name_uses(function)
    taken = set(uses.loads) | set(uses.stores) | {p.name.value for p in _params(function)}
    name, n = preferred, 2
    while name in taken:
        name, n = "%s_%d" % (preferred, n), n + 1
    return name


def forwarded_to(name: str, helper: ReaderHelper) -> str:
    """The name of the helper the forwarding helper `name` passes its queue to (`Class.inner` for
    a method `Class.outer`)."""
    inner = helper.via[0].name
    return "%s.%s" % (name.rsplit(".", 1)[0], inner) if "." in name else inner


def innermost(helper: ReaderHelper) -> ReaderHelper:
    """The helper that makes the reader, at the end of a chain of forwarding helpers."""
    while helper.via is not None:
        helper = helper.via[0]
    return helper


def chain_names(helper: ReaderHelper) -> List[str]:
    """The helper and those it forwards to, outermost first."""
    names = [helper.name]
    while helper.via is not None:
        helper = helper.via[0]
        names.append(helper.name)
    return names


def reader_arguments(helper: ReaderHelper, call: cst.Call, module_names: set,
                     shadowed: frozenset = frozenset()) -> Dict[str, cst.BaseExpression]:
    """The reader constructor's arguments (by parameter) written for the scope that makes `call`
    of `helper`, through every forwarding helper between. `shadowed`: names the calling scope binds,
    which a module-level name read by the helper must not be. NotMovable (or the rule's Unsupported)
    when an argument has no meaning there."""
    arguments = bind_call(helper.function, call)
    if helper.via is None:
        bound = helper.reader_rule.bind(helper.reader_call)
    else:
        inner, inner_call = helper.via
        bound = reader_arguments(inner, inner_call, module_names, frozenset(_bound_names(helper.function)))
    return {name: move_expression(node, helper.function, helper.reader_stmt, arguments, module_names,
                                  shadowed=shadowed)
            for name, node in bound.items()}


def _bound_names(function: cst.FunctionDef) -> set:
    return set(cstutil.name_uses(function.body).stores) | {p.name.value for p in _params(function)}


def returned(function: cst.FunctionDef) -> Optional[cst.BaseExpression]:
    """The value of a function's last statement when that is `return value` (also as the last
    statement of a `with` that ends the function), else None."""
    if not isinstance(function.body, cst.IndentedBlock) or not function.body.body:
        return None
    last = function.body.body[-1]
    while isinstance(last, cst.With) and isinstance(last.body, cst.IndentedBlock) and last.body.body:
        last = last.body.body[-1]
    last = cstutil.single_small(last)
    return last.value if isinstance(last, cst.Return) else None


def find_batch_helper(function: cst.FunctionDef, imports: ImportMap) -> Optional[BatchHelper]:
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    param_names = [p.name.value for p in _params(function)]
    for stmt in function.body.body:
        sites, flag = _batch_sites(stmt, imports, param_names)
        if not sites:
            continue
        shapes = {_site_shape(site) for site in sites}
        if len(shapes) != 1 or None in shapes:
            return None
        tensors, targets = shapes.pop()
        if not set(tensors) <= set(param_names):
            return None
        return BatchHelper(function, tensors, targets, tuple(sites), flag, (stmt,))
    found = batch_down.returning_sites(function, imports, BATCHERS, _call_rule, BatchSite)
    if found is not None:
        sites, flag, removable, tensors, row = found
        if row is not None:
            return BatchHelper(function, tensors, tensors, tuple(sites), flag, removable, returns=True,
                               row=row[0], row_statement=row[1], listed=row[3])
        return BatchHelper(function, tensors, tensors, tuple(sites), flag, removable, returns=True)
    return None


def _batch_sites(stmt, imports, param_names) -> Tuple[List[BatchSite], Optional[str]]:
    value = cstutil.statement_value(stmt)
    rule = _call_rule(value, imports, BATCHERS)
    if rule and cstutil.single_assign(stmt):
        return [BatchSite(rule, value, stmt)], None
    # `if flag:` or `if not flag:` (its arms swapped): sites[0] is what a true flag batches.
    test, negated = (stmt.test, False) if isinstance(stmt, cst.If) else (None, False)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
        test, negated = test.expression, True
    if (isinstance(stmt, cst.If) and isinstance(test, cst.Name) and test.value in param_names
            and isinstance(stmt.orelse, cst.Else) and isinstance(stmt.body, cst.IndentedBlock)
            and isinstance(stmt.orelse.body, cst.IndentedBlock)
            and len(stmt.body.body) == 1 and len(stmt.orelse.body.body) == 1):
        sites = []
        arms = (stmt.body.body[0], stmt.orelse.body.body[0])
        for arm in (arms[::-1] if negated else arms):
            arm_value = cstutil.statement_value(arm)
            arm_rule = _call_rule(arm_value, imports, BATCHERS)
            if not (arm_rule and cstutil.single_assign(arm)):
                return [], None
            sites.append(BatchSite(arm_rule, arm_value, arm))
        return sites, test.value
    return [], None


def _site_shape(site: BatchSite):
    """(tensor parameter names, target names) of `a, b = batch([p, q], ...)`, or None."""
    target = cstutil.single_assign(site.statement)[0]
    tensors = batch_down.tensors_argument(site.call)
    if not isinstance(tensors, (cst.List, cst.Tuple)) or not isinstance(target, (cst.Tuple, cst.List)):
        return None
    names = tuple(e.value.value for e in tensors.elements if isinstance(e.value, cst.Name))
    targets = tuple(e.value.value for e in target.elements if isinstance(e.value, cst.Name))
    if len(names) != len(tensors.elements) or len(targets) != len(target.elements) or len(names) != len(targets):
        return None
    return names, targets


def bind_call(function: cst.FunctionDef, call: cst.Call) -> Dict[str, cst.BaseExpression]:
    """The call's argument expression for each parameter (defaults included); NotMovable if unclear."""
    params = _params(function)
    bound: Dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise NotMovable("it is called with * or ** arguments")
        if arg.keyword is None:
            if position >= len(params):
                raise NotMovable("it is called with more arguments than it takes")
            bound[params[position].name.value] = arg.value
        else:
            bound[arg.keyword.value] = arg.value
    for param in params:
        if param.name.value not in bound and param.default is not None:
            bound[param.name.value] = param.default
    return bound


def literal_truth(node: Optional[cst.BaseExpression]) -> Optional[bool]:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


class _Substitute(cst.CSTTransformer):
    def __init__(self, replace):
        self.replace = replace
        self.attribute_names = set()  # id() of the `attr` of each `obj.attr`: no name of the scope

    def leave_Name(self, original_node, updated_node):
        if id(original_node) in self.attribute_names:
            return updated_node
        return self.replace(original_node) or updated_node

    def leave_Attribute(self, original_node, updated_node):
        return self.replace(original_node) or updated_node

    def visit_Attribute(self, node):
        self.attribute_names.add(id(node.attr))
        return self.replace(node) is None  # a replaced `obj.attr` is not entered

    def visit_Arg(self, node):
        return True

    def leave_Subscript(self, original_node, updated_node):
        """`d["key"]` whose `d` became the dict display it was bound to: the key's value, as a
        person would write it (not the whole display, repeated for each key read)."""
        value = updated_node.value
        if not isinstance(value, cst.Dict) or isinstance(original_node.value, cst.Dict) \
                or len(updated_node.slice) != 1 or not isinstance(updated_node.slice[0].slice, cst.Index) \
                or not isinstance(updated_node.slice[0].slice.value, cst.SimpleString):
            return updated_node
        key = updated_node.slice[0].slice.value.evaluated_value
        if not all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) for e in value.elements):
            return updated_node
        found = [e.value for e in value.elements if e.key.evaluated_value == key]
        return _parenthesised(found[-1]) if found else updated_node


def move_expression(expr: cst.BaseExpression, function: cst.FunctionDef, before: cst.BaseStatement,
                    arguments: Dict[str, cst.BaseExpression], module_names: set, depth: int = 0,
                    definitions: Optional[Dict[str, cst.BaseExpression]] = None,
                    shadowed: frozenset = frozenset()) -> cst.BaseExpression:
    """`expr`, written in `function`, rewritten for its caller's scope.

    Parameters become the call's arguments; locals their single assignment made before `before`;
    module-level names stay, unless the caller binds them too (`shadowed`). NotMovable when any
    name has no such meaning. `definitions`: those reaching `before` (reaching_definitions), when
    the caller moves several expressions.
    """
    if depth > 20:
        raise NotMovable("its definitions are too deeply nested")
    if definitions is None:
        definitions = reaching_definitions(function, before)
    params = {p.name.value for p in _params(function)}
    reassigned = params & set(cstutil.name_uses(function.body).stores)

    def replace(node):
        if isinstance(node, cst.Attribute):
            key = dotted(node)
            if key in definitions:
                return _parenthesised(move_expression(definitions[key], function, before, arguments, module_names,
                                                      depth + 1, definitions, shadowed))
            return None
        if not isinstance(node, cst.Name):
            return None
        name = node.value
        if name in params:
            if name in reassigned:
                raise NotMovable("parameter `%s` is reassigned inside %s" % (name, function.name.value))
            if name not in arguments:
                raise NotMovable("parameter `%s` has no value at the call" % name)
            return _parenthesised(arguments[name])
        if name in definitions:
            return _parenthesised(move_expression(definitions[name], function, before, arguments, module_names,
                                                  depth + 1, definitions, shadowed))
        if name in shadowed:
            raise NotMovable("`%s` names a module-level value in %s and another value where it is called"
                             % (name, function.name.value))
        if name in module_names or name in _BUILTINS:
            return None
        raise NotMovable("`%s` is computed inside %s" % (name, function.name.value))

    moved = expr.visit(_Substitute(replace))
    if depth == 0 and moved is not expr and moved.lpar and not expr.lpar:
        moved = moved.with_changes(lpar=[], rpar=[])  # a whole replaced argument needs no parentheses
    return moved


def _parenthesised(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString, cst.Call,
                         cst.Subscript, cst.List, cst.Tuple, cst.Dict)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def reaching_definitions(function: cst.FunctionDef, before: cst.BaseStatement) -> Dict[str, cst.BaseExpression]:
    """Names (and `obj.attr`) whose value at `before` is fixed by one plain assignment earlier on.

    Straight-line code only: a name also stored by a compound statement (loop, if, try) before
    `before` has no single reaching definition.
    """
    values: Dict[str, cst.BaseExpression] = {}
    for leaf in blocks.flatten(function.body.body, function.body.body):
        if leaf.original is before:
            break
        assign = cstutil.single_assign(leaf.original)
        if assign is not None:
            key = dotted(assign[0])
            if key:
                values[key] = assign[1]
                continue
        uses = cstutil.name_uses(leaf.original)
        for name in set(uses.stores) | uses.mutated:  # `d[k] = v` changes what `d` was bound to
            values.pop(name, None)
            for key in [k for k in values if k.startswith(name + ".")]:
                values.pop(key)
    return values


def migrated_name(name: str, reader: bool) -> str:
    """The name of a helper's migrated copy, when the helper itself must stay: `read_cifar10` →
    `parse_cifar10`; a batching helper gets `_from_batch`."""
    if reader:
        stripped = name.lstrip("_")
        prefix = name[:len(name) - len(stripped)]
        if stripped.startswith("read_"):
            return prefix + "parse_" + stripped[len("read_"):]
        return name + "_from_record"
    return name + "_from_batch"


def migrate_reader_helper(function: cst.FunctionDef, helper: ReaderHelper) -> cst.FunctionDef:
    """The helper taking the record instead of the queue, without its reader."""
    original = helper.function
    gone = {leaf.path for leaf in blocks.flatten(original.body.body, original.body.body)
            if leaf.original is helper.reader_stmt or leaf.original is helper.read_stmt}
    removed = {id(stmt): cstutil.opened_by_blank_line(stmt) for stmt in (helper.reader_stmt, helper.read_stmt)}
    body = list(cstutil.kept_apart(original.body.body, blocks.rebuild(function.body.body, {}, gone), removed))
    if helper.scope_uses:  # what is left of the queue only picks a scope's graph: the record does that
        body = [cstutil.rename(stmt, {helper.queue_param: helper.value_name}) for stmt in body]
    params = [p.with_changes(name=cst.Name(helper.value_name)) if p.name.value == helper.queue_param else p
              for p in function.params.params]
    body = redocument(body, helper.queue_param, helper.value_name)
    return function.with_changes(params=function.params.with_changes(params=params),
                                 body=function.body.with_changes(body=body))


def migrate_forwarding_helper(function: cst.FunctionDef, helper: ReaderHelper, callee: str) -> cst.FunctionDef:
    """The forwarding helper taking the record instead of the queue, passing the record on (to
    `callee`: the helper it called, or that helper's migrated copy)."""
    original = helper.function
    renames = {helper.queue_param: helper.value_name, helper.via[0].name: callee}
    replacements = {leaf.path: [cstutil.rename(leaf.updated, renames)]
                    for leaf in blocks.flatten(original.body.body, function.body.body)
                    if leaf.original is helper.read_stmt}
    body = blocks.rebuild(function.body.body, replacements, set())
    params = [p.with_changes(name=cst.Name(helper.value_name)) if p.name.value == helper.queue_param else p
              for p in function.params.params]
    body = redocument(body, helper.queue_param, helper.value_name)
    return function.with_changes(params=function.params.with_changes(params=params),
                                 body=function.body.with_changes(body=body))


def redocument(body: List[cst.BaseStatement], old: str, new: str, drop: Tuple[str, ...] = (),
               description: str = "one record read from the files, a scalar string Tensor."
               ) -> List[cst.BaseStatement]:
    """The docstring's entry for the queue parameter (`filename_queue: A queue of ...`, with its
    continuation lines) describes the parameter that replaced it (`new: <description>`; by
    default the record); the entries of the parameters in `drop` (gone with the producer) go."""
    if not body or not isinstance(cstutil.single_small(body[0]), cst.Expr):
        return body
    string = cstutil.single_small(body[0]).value
    names = tuple(n for n in (old,) + drop if n)
    if not isinstance(string, cst.SimpleString) or not any(n in string.value for n in names):
        return body
    lines = string.value.split("\n")
    out, skipping, indent, described = [], False, 0, False
    for number, line in enumerate(lines):
        stripped = line.lstrip()
        if skipping and stripped and len(line) - len(stripped) > indent and number < len(lines) - 1:
            continue  # a continuation line of the replaced entry (the last line holds the closing quotes)
        skipping = False
        entry = next((n for n in names if stripped.startswith(n + ":") or stripped.startswith(n + " (")), None)
        if entry is not None:
            indent = len(line) - len(stripped)
            if not described:
                out.append(line[:indent] + "%s: %s" % (new, description))
                described = True
            skipping = True
            continue
        out.append(line)
    if out == lines:
        return body
    new_string = string.with_changes(value="\n".join(out))
    return [cstutil.replace_node(body[0], string, new_string)] + list(body[1:])


def migrate_batch_helper(function: cst.FunctionDef, helper: BatchHelper) -> cst.FunctionDef:
    """The helper taking the batch instead of the tensors to batch, without its batching."""
    positions = [list(helper.function.body.body).index(stmt) for stmt in helper.removable]
    if helper.returns:
        body = batch_down.migrated_body(list(function.body.body), positions, helper.tensor_params, helper.row)
    else:
        body = [stmt for i, stmt in enumerate(function.body.body) if i not in positions]
    dropped_reads = {name for stmt in helper.removable for name in cstutil.name_uses(stmt).loads}
    # Locals that only configured the batching (`num_preprocess_threads = 16`) go with it.
    # So do their adjustments (`if num_preprocess_threads > 2: num_preprocess_threads -= 2`).
    remaining = cst.IndentedBlock(body=body)
    while True:
        dead = [stmt for stmt in remaining.body
                if _configures(stmt, dropped_reads) and not (
                    _configures(stmt, dropped_reads) & set(cstutil.name_uses(cst.IndentedBlock(
                        body=[other for other in remaining.body if other is not stmt])).loads))]
        if not dead:
            break
        remaining = remaining.with_changes(body=[stmt for stmt in remaining.body if stmt not in dead])
    renames = dict(zip(helper.tensor_params, helper.targets))
    params = [p.with_changes(name=cst.Name(renames[p.name.value])) if p.name.value in renames else p
              for p in function.params.params]
    return function.with_changes(params=function.params.with_changes(params=params),
                                 body=function.body.with_changes(body=list(remaining.body)))


def _configures(stmt: cst.BaseStatement, names) -> set:
    """The names of `names` that `stmt` binds when it only binds some of them: `n = value`,
    `n -= 2`, or an `if test:` (no else) of such statements; else an empty set."""
    if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock):
        bound = [_configures(inner, names) for inner in stmt.body.body]
        return set().union(*bound) if all(bound) else set()
    small = cstutil.single_small(stmt)
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value in names:
        return {small.target.value}
    assign = cstutil.single_assign(stmt)
    if assign and isinstance(assign[0], cst.Name) and assign[0].value in names:
        return {assign[0].value}
    return set()
