"""Reader methods chosen at run time: a function makes a file-name queue and hands it to
`reader.prepare_reader(queue)`, where `reader` may be an instance of any of several classes of the
run (a flag names which), each `prepare_reader` making a reader of its own and reading the queue
(one record with read(), or a chunk of records with read_up_to()):

    # readers.py                                     # train.py
    class BaseReader(object):                        def inputs(reader, files, batch_size, n):
        def prepare_reader(self, queue):                 queue = tf.train.string_input_producer(files)
            raise NotImplementedError()                  data = [reader.prepare_reader(queue) for _ in range(n)]
    class ChunkReader(BaseReader):                       return tf.train.shuffle_batch_join(
        def prepare_reader(self, queue, size=64):            data, batch_size, ..., enqueue_many=True)
            reader = tf.TFRecordReader()
            _, chunk = reader.read_up_to(queue, size)
            return parse(chunk)
    class RecordReader(BaseReader): ...  reader.read(queue) ...

No call proves the object's class, so the classes go together or not at all. Migrated, each
reader method takes the record (read_up_to's: the chunk) where it took the queue, and gets a
sibling after it, `prepare_reader_records(self, filename, size=64)`: the records it read from one
file, as a dataset (`tf.data.TFRecordDataset(filename).batch(size)` for read_up_to, whose chunks
never span two files). The caller reads its files with `reader.prepare_reader_records` (interleaved
`n` at a time for n readers) and maps `reader.prepare_reader` over the records.

Contract, per method name (`plan` on stdlib trees, `_prove` with libcst):
- some function with a batch the first pass left calls `obj.method(name)`;
- every definition of the method in the run is one of a top-level class: abstract (past a
  docstring, only `raise` or `pass`) or a reader method `_prove` proves: `self`, the queue, then
  parameters with defaults, no decorator; the reader made and read by the body's own statements,
  the queue read nowhere else, the reader's arguments and read_up_to's count reading no local
  variable (the sibling evaluates them); one return, last, of a literal tuple, list or dict (of
  one kind in every class: batch_join's structure); its per-record code, and the methods of its
  class and functions of the run it calls, free of what a map function cannot hold (collections,
  summaries, variables, lookup tables, queues, the global step: `_per_record_refusal`);
- every mention of `.method` in the run is such a call, `obj` a plain name, and no file the run
  cannot parse names it; the sibling's name is free in each class's module.
The callers are analysed again asking for it (engine: ForeignHelpers.dispatched); api keeps the
family only when every call of the method in the run was taken by a pipeline
(FileAnalysis.dispatched_used); then each class's module is analysed again, its analysis writing
the classes (`rewrite_members`, ForeignHelpers.members), so that what it still builds, and so its
queue runners, is known as for any module.
"""
import ast
import re
from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Set, Tuple, Union

import libcst as cst

from qmigrate import cstutil, graph_state, helpers
from qmigrate.names import ImportMap, ast_dotted, canonical
from qmigrate.rules import READERS, rule_for

SUFFIX = "_records"
# The batching codes a dispatched call's records may reach.
_BATCH_CODE = re.compile(r"QM30[1-9]$")
# Beside what graph_state refuses (summaries, collection entries, variables, graph-only ops): a
# map function holds no queue, table or assignment. Matched on the called name's last part, or
# (`_PREFIXES`) its canonical name's start.
_REFUSED_CALLS = frozenset(("lookup", "index_table_from_file", "index_table_from_tensor", "HashTable", "assign",
                            "assign_add", "assign_sub"))
_PREFIXES = ("tensorflow.train.", "tensorflow.contrib.lookup.", "tensorflow.lookup.")


@dataclass(frozen=True)
class Member:
    """A class's reader method, proven (its module's own analysis rewrites it: `rewrite_members`)."""

    path: str
    class_name: str
    method: str


@dataclass(frozen=True)
class Family:
    """Every reader method of one name in the run, migrated together; `calls`: how many calls of
    it the run makes, by caller path."""

    method: str
    sibling: str
    members: Tuple[Member, ...]
    calls: Tuple[Tuple[str, int], ...]
    kind: str  # what every class returns, as batch_join's element: "dict", "single" or "tuple"

    @property
    def ask(self) -> Tuple[str, str, str, str, str]:
        """What a caller's job carries: (method, sibling, a member's path, its class, kind)."""
        first = self.members[0]
        return self.method, self.sibling, first.path, first.class_name, self.kind


@dataclass(frozen=True)
class Refusal:
    """Why the reader methods of one name stay: `why`, with `%s` where the place goes (`path`, `line`),
    which family_reasons writes relative to the file whose diagnostic it tells."""

    method: str
    path: str
    line: int
    why: str


def plan(files: List[str], program, results) -> Tuple[Dict[str, Family], Dict[str, Refusal]]:
    """method name -> its Family, for every method a caller with a batch left may hand its queue;
    and method name -> its Refusal, for such a method that some class of the run defines as a
    reader method (it reads its queue parameter) but whose family is not proven."""
    wanted: Set[str] = set()
    for path in files:
        result = results.get(path)
        if result is None or not any(_BATCH_CODE.match(d.code) for d in result.remaining):
            continue
        tree = program.tree(path)
        wanted |= {method for method, _ in calls(tree)} if tree is not None else set()
    families, refused = {}, {}
    for method in sorted(wanted):
        if not _may_define(method, program):  # the cheap test first: most names are no reader method's
            continue
        family = _family(method, program)
        if isinstance(family, Family):
            families[method] = family
        elif family is not None:
            refused[method] = family
    return families, refused


def _may_define(method: str, program) -> bool:
    """Whether some file of the run may define `method` as a method that makes a reader: its text
    holds `def method(self, ...` and a reader class's name."""
    pattern = re.compile(rb"def\s+%s\s*\(\s*self\s*," % re.escape(method.encode()))
    return any(b"Reader" in source and pattern.search(source)
               for source in (program.source(path) for path in program.files_mentioning(method)) if source)


def calls(tree) -> List[Tuple[str, ast.Call]]:
    """(method, call) of each `obj.method(name)` in the tree."""
    return [(node.func.attr, node) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.Name) and node.func.attr not in ("read", "read_up_to")]


def _family(method: str, program) -> Union[Family, Refusal, None]:
    """The family of `method`, or why not (None when no class of the run reads a queue with it, or
    nothing calls it: no family to speak of)."""
    members, counts, refusal, reads = [], {}, None, False
    for path in sorted(program.files_mentioning(method)):
        tree = program.tree(path)
        if tree is None:
            named = re.search(rb"\.\s*%s\b" % method.encode(), program.source(path) or b"")
            if named and refusal is None:  # a file the run cannot parse (Python 2) names it: it may hand it a queue
                line = (program.source(path) or b"")[:named.start()].count(b"\n") + 1
                refusal = Refusal(method, path, line, "%%s, which qmigrate cannot parse, names `.%s`: it may hand the "
                                                      "method a queue" % method)
            continue
        calls_here = [call for name, call in calls(tree) if name == method]
        called = {id(call.func) for call in calls_here}
        defined = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == method and id(node) not in called and refusal is None:
                refusal = Refusal(method, path, node.lineno, "`.%s` at %%s is not a call `obj.%s(name)`: what it "
                                                             "is handed, qmigrate does not see" % (method, method))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == method:
                defined[id(node)] = node
                reads = reads or _reads_its_queue(node)
        top = {id(member): cls for cls in tree.body if isinstance(cls, ast.ClassDef)
               for member in cls.body if isinstance(member, ast.FunctionDef) and member.name == method}
        for key in set(defined) - set(top):
            if refusal is None:
                refusal = Refusal(method, path, defined[key].lineno, "%s() at %%s is not a method of a top-level "
                                                                     "class: qmigrate does not follow it" % method)
        if calls_here:
            counts[path] = len(calls_here)
        for key, cls in top.items():
            if _abstract(defined[key]) or refusal is not None:
                continue
            member = _prove(path, program, cls.name, defined[key])
            if isinstance(member, str):
                refusal = Refusal(method, path, defined[key].lineno, "%s.%s() at %%s %s" % (cls.name, method, member))
            else:
                members.append(member)
    if not reads or not counts:
        return None
    if refusal is not None or not members:
        return refusal
    kinds = [_returned_kind(program, m) for m in members]
    for member, kind in zip(members, kinds):
        if kind is None:
            return Refusal(method, member.path, _line_of(program, member),
                           "%s.%s() at %%s does not return a literal tuple, list or dict (itself, through a name "
                           "it binds once, or through a method of its class): the structure a caller batches is "
                           "not seen" % (member.class_name, method))
    joined = {join_kind(kind) for kind in kinds}
    if len(joined) != 1:  # (tuples of different lengths are one kind: a caller unpacks what its class gives)
        odd = next(m for m, k in zip(members, kinds) if join_kind(k) != join_kind(kinds[0]))
        return Refusal(method, odd.path, _line_of(program, odd),
                       "the classes return records of different structures: %s.%s() a %s, %s.%s() at %%s a %s" % (
                           members[0].class_name, method, _KIND_WORDS[join_kind(kinds[0])], odd.class_name, method,
                           _KIND_WORDS[join_kind(kinds[members.index(odd)])]))
    return Family(method, method + SUFFIX, tuple(members), tuple(sorted(counts.items())), joined.pop())


_KIND_WORDS = {"dict": "dict", "single": "tuple of one tensor", "tuple": "tuple"}


def _line_of(program, member: Member) -> int:
    tree = program.tree(member.path)
    cls = next(c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == member.class_name)
    return next(m.lineno for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == member.method)


def _reads_its_queue(function) -> bool:
    """Whether the function reads its second parameter (after `self`) with `x.read(q)` or
    `x.read_up_to(q, n)`: a reader method, whatever else it does."""
    args = function.args.args
    if len(args) < 2:
        return False
    queue = args[1].arg
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("read", "read_up_to") and node.args
               and isinstance(node.args[0], ast.Name) and node.args[0].id == queue for node in ast.walk(function))


def untaken(family: Family, path: str, program) -> Refusal:
    """Why a planned family stays when its calls in `path` were not all migrated."""
    lines = sorted(call.lineno for name, call in calls(program.tree(path)) if name == family.method)
    return Refusal(family.method, path, lines[0] if lines else 0,
                   "its call at %s stays (the diagnostics there say why), and the classes go with every call of "
                   "the method in the run or not at all")


def _abstract(function: ast.FunctionDef) -> bool:
    body = function.body[1:] if ast.get_docstring(function, clean=False) is not None else function.body
    return bool(body) and all(isinstance(stmt, (ast.Raise, ast.Pass)) for stmt in body)


def _returned_kind(program, member: Member) -> Optional[Tuple[str, int]]:
    """(kind, length) of the literal the reader method returns, itself or through the methods of
    its class it returns the result of (`return self.parse(records)`): ("dict", 0), ("tuple", n)."""
    tree = program.tree(member.path)
    cls = next(c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == member.class_name)
    methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)}
    function = methods[member.method]
    for _ in range(4):
        returns = [node for node in _own(function.body) if isinstance(node, ast.Return)]
        if len(returns) != 1 or function.body[-1] is not returns[0]:
            return None
        value = _bound_literal(function, returns[0].value)
        if isinstance(value, ast.Dict):
            return "dict", 0
        if isinstance(value, (ast.Tuple, ast.List)) and value.elts and not any(
                isinstance(e, ast.Starred) for e in value.elts):
            return "tuple", len(value.elts)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and isinstance(value.func.value, ast.Name) and value.func.value.id == "self"
                and value.func.attr in methods):
            return None
        function = methods[value.func.attr]
    return None


def _bound_literal(function: ast.FunctionDef, value):
    """`value`, or for a name the method binds once, in its own statements, to a dict or tuple
    literal (`output = {...}`; a dict may gain keys after, a tuple cannot change), that literal."""
    if not isinstance(value, ast.Name):
        return value
    stores = [node for node in _own(function.body) if isinstance(node, ast.Name) and node.id == value.id
              and not isinstance(node.ctx, ast.Load)]
    assigns = [node for node in function.body if isinstance(node, ast.Assign) and len(node.targets) == 1
               and isinstance(node.targets[0], ast.Name) and node.targets[0].id == value.id]
    if len(stores) != 1 or len(assigns) != 1 or assigns[0].targets[0] is not stores[0] \
            or not isinstance(assigns[0].value, (ast.Dict, ast.Tuple)):
        return value
    return assigns[0].value


def join_kind(kind: Tuple[str, int]) -> str:
    """batch_join's element for a returned literal of that kind: "dict", "single" or "tuple"."""
    return "dict" if kind[0] == "dict" else "single" if kind[1] == 1 else "tuple"


def _own(nodes) -> Iterable[ast.AST]:
    from qmigrate.summary import own_nodes
    return own_nodes(nodes)


def _prove(path: str, program, class_name: str, function_ast: ast.FunctionDef) -> Union[Member, str]:
    """The Member for `class_name.<method>` of `path`, or what is not proven (said of the method)."""
    source = program.source(path)
    sibling = function_ast.name + SUFFIX
    if source is None or re.search(rb"\b%s\b" % sibling.encode(), source):
        return "is in a module that already uses the name %s, which its migration would give its sibling" % sibling
    args = function_ast.args
    if (function_ast.decorator_list or len(args.args) < 2 or args.vararg or args.kwarg or args.kwonlyargs
            or len(args.defaults) != len(args.args) - 2 or getattr(args, "posonlyargs", None)):
        return ("is decorated, or takes other parameters than `self`, the queue and parameters with defaults, "
                "which a map function and its sibling could not be given")
    refusal = _per_record_refusal(program, path, class_name, function_ast)
    if refusal is not None:
        return ("has per-record code that a map function cannot hold (%s: its state would be made in the map "
                "function's graph)" % refusal)
    if _constructor_makes_ops(program.tree(path), class_name):
        return ("belongs to a class whose constructor calls TensorFlow: what it keeps on the object may be a "
                "tensor or variable of the program's graph, which a one-shot iterator's map function cannot capture")
    try:
        module = cst.parse_module(source)
    except Exception:
        return "is in a module libcst cannot parse"
    function = method_of(module, class_name, function_ast.name)
    if function is None or member_rewrite(function, ImportMap(module), module) is None:
        return ("does not make its reader and read its queue in its own statements as qmigrate moves into a "
                "map function (one reader made and read once, by read() or read_up_to(), its record read only "
                "by the per-record code)")
    return Member(path, class_name, function_ast.name)


def method_of(module: cst.Module, class_name: str, method: str) -> Optional[cst.FunctionDef]:
    """The method as a plain definition of a top-level class of the module, or None."""
    cls = next((s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == class_name), None)
    if cls is None or not isinstance(cls.body, cst.IndentedBlock):
        return None
    return next((m for m in cls.body.body if isinstance(m, cst.FunctionDef) and m.name.value == method), None)


def member_rewrite(function: cst.FunctionDef, imports: ImportMap, module: cst.Module):
    """(the reader's constructor call, the method taking the record, the sibling's source) for a
    reader method whose reader reads one file as a dataset can; None otherwise."""
    tf = imports.local_name_for("tensorflow")
    found = reader_method(function, imports)
    if tf is None or found is None:
        return None
    helper, up_to = found
    records = _records_expression(helper, up_to, function, tf, imports)
    if records is None:
        return None
    documented = function
    if up_to is not None:  # its record is a chunk of records
        documented = function.with_changes(body=function.body.with_changes(body=helpers.redocument(
            list(function.body.body), helper.queue_param, helper.value_name,
            description="up to %s records read from one file, a string Tensor of shape [None]." % _code(up_to))))
    return helper.reader_call, helpers.migrate_reader_helper(documented, helper), _sibling(function, helper, records)


def rewrite_members(new_module: cst.Module, module: cst.Module, imports: ImportMap, wanted):
    """`new_module` (what the analysis of `module` made of it) with each wanted (class, method)
    migrated and its sibling after it, when the method is there as `module` has it; and the
    reader constructor calls (of `module`) of those written, and their keys (`Class.method`)."""
    body, written, calls = list(new_module.body), [], []
    for class_name, method in wanted:
        original = method_of(module, class_name, method)
        found = member_rewrite(original, imports, module) if original is not None else None
        at = next((i for i, s in enumerate(body) if isinstance(s, cst.ClassDef) and s.name.value == class_name
                   and isinstance(s.body, cst.IndentedBlock)), None)
        if found is None or at is None:
            continue
        members = list(body[at].body.body)
        place = next((i for i, m in enumerate(members) if isinstance(m, cst.FunctionDef)
                      and m.name.value == method and m.deep_equals(original)), None)
        if place is None:
            continue  # another step changed it
        indent = body[at].body.indent if body[at].body.indent is not None else module.default_indent
        sibling = cstutil.parse_class_member(cstutil.as_module_indents(found[2], module.default_indent), indent, module)
        members[place:place + 1] = [found[1].with_changes(leading_lines=members[place].leading_lines),
                                    sibling.with_changes(leading_lines=[cst.EmptyLine(indent=False)])]
        body[at] = body[at].with_changes(body=body[at].body.with_changes(body=members))
        written.append("%s.%s" % (class_name, method))
        calls.append(found[0])
    return new_module.with_changes(body=body), written, calls


def reader_method(function: cst.FunctionDef, imports: ImportMap):
    """(ReaderHelper, read_up_to's count or None) when the method's own statements make a reader
    (`reader = tf.XReader(...)`) and read its second parameter with it (`_, record = reader.read(q)`
    or `read_up_to(q, n)`), neither name read anywhere else, the key unused; None otherwise."""
    if not isinstance(function.body, cst.IndentedBlock) or len(function.params.params) < 2:
        return None
    queue = function.params.params[1].name.value
    readers, found = {}, None
    for stmt in function.body.body:
        assign = cstutil.single_assign(stmt)
        if assign is None:
            continue
        target, value = assign
        rule = rule_for(imports.resolve(value.func)) if isinstance(value, cst.Call) else None
        if rule in READERS and isinstance(target, cst.Name):
            readers[target.value] = (rule, value, stmt)
            continue
        value = helpers.plain_read_call(value)
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name) and value.func.value.value in readers
                and value.args and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == queue
                and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
                and all(isinstance(e.value, cst.Name) for e in target.elements)):
            continue
        method, args = value.func.attr.value, value.args
        if found is not None or not (method == "read" and len(args) == 1 or method == "read_up_to" and len(args) == 2):
            return None
        rule, call, reader_stmt = readers[value.func.value.value]
        found = (rule, call, reader_stmt, stmt, target, args[1].value if len(args) == 2 else None,
                 value.func.value.value)
    if found is None:
        return None
    rule, call, reader_stmt, read_stmt, target, up_to, reader_name = found
    loads = Counter(cstutil.name_uses(function.body).loads)
    key = target.elements[0].value.value
    scope_uses = len(helpers.scope_values(function, queue, imports))
    if loads[queue] != 1 + scope_uses or loads[reader_name] != 1 or (key != "_" and loads[key]):
        return None
    helper = helpers.ReaderHelper(function, queue, target.elements[1].value.value, rule, call, reader_stmt,
                                  read_stmt, scope_uses=scope_uses)
    return helper, up_to


def _records_expression(helper, up_to, function: cst.FunctionDef, tf: str, imports: ImportMap) -> Optional[str]:
    """`tf.data.TFRecordDataset({file})...`: the records the method's reader read from one file
    (`{file}` to be formatted with the sibling's parameter), or None when the reader's arguments or
    read_up_to's count read a local variable of the method, or the reader reads whole files."""
    from qmigrate.rules.base import Unsupported
    from qmigrate.synth import _READER_DATASETS
    stores = set(cstutil.name_uses(function.body).stores)
    params = {p.name.value for p in function.params.params}
    for node in [helper.reader_call] + ([up_to] if up_to is not None else []):
        if set(cstutil.name_uses(node).loads) & (stores - params):
            return None
    try:
        model = helper.reader_rule.model(helper.reader_rule.bind(helper.reader_call), _code, imports.resolve)
    except (Unsupported, Exception):
        return None
    if model is None or model.kind not in _READER_DATASETS or model.keyed_records:
        return None
    args = ", ".join(["{file}"] + ["%s=%s" % kv for kv in model.arguments])
    text = "%s.data.%s(%s)" % (tf, _READER_DATASETS[model.kind], args)
    if model.skip_lines:
        text += ".skip(%s)" % model.skip_lines
    if up_to is not None:
        text += ".batch(%s)" % _code(up_to)  # read_up_to's chunks never span two files
    return text


def _code(node) -> str:
    return cst.Module([]).code_for_node(node)


def _sibling(function: cst.FunctionDef, helper, records: str) -> str:
    """The sibling's source: the method's parameters, a file name's in the queue's place."""
    taken = {p.name.value for p in function.params.params}
    name, n = "filename", 2
    while name in taken:
        name, n = "filename_%d" % n, n + 1
    params = ", ".join(name if p.name.value == helper.queue_param else p.name.value + (
        "=" + _code(p.default) if p.default is not None else "") for p in function.params.params)
    method = function.name.value
    return ('def %s%s(%s):\n'
            '    """The records %s() takes, read from the file `%s` as its reader read them\n'
            '    (its callers read their files with this method where they made it a queue)."""\n'
            '    return %s\n' % (method, SUFFIX, params, method, name, records.format(file=name)))


def _per_record_refusal(program, path: str, class_name: str, function: ast.FunctionDef) -> Optional[str]:
    """What in the method's code, or in the methods of its class (by `self.name(...)`) and the
    functions of the run's modules (by name, or `module.name(...)`) it calls, a map function
    cannot hold; None when nothing."""
    seen: Set[Tuple[str, str]] = set()
    todo = [(path, class_name, function)]
    while todo:
        where, cls, node = todo.pop()
        key = (where, "%s.%s" % (cls, node.name) if cls else node.name)
        if key in seen:
            continue
        seen.add(key)
        tree = program.tree(where)
        imports = ImportMap(None, tree)
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            spelled = ast_dotted(call.func)
            name = canonical(imports.resolve_dotted(spelled) or "") if spelled else ""
            last = name.rsplit(".", 1)[-1] if name else (
                call.func.attr if isinstance(call.func, ast.Attribute) else "")
            if name == "tensorflow.add_to_collection" and _unread_collection(program, call):
                continue  # lost to the program's graph in a map function, but nothing reads it
            if graph_state.makes_state(name) or last in _REFUSED_CALLS or name.startswith(_PREFIXES):
                return "it calls %s()" % (spelled or last)
            for callee in _callees(program, where, tree, imports, cls, call):
                todo.append(callee)
    return None


def _constructor_makes_ops(tree, class_name: str) -> bool:
    """Whether the class's `__init__`, or that of a class of the module it derives from, calls
    TensorFlow: what it keeps on the object may be a tensor or variable of the program's graph,
    which a one-shot iterator's map function cannot capture."""
    imports = ImportMap(None, tree)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    seen, todo = set(), [class_name]
    while todo:
        cls = classes.get(todo.pop())
        if cls is None or cls.name in seen:
            continue
        seen.add(cls.name)
        todo.extend(base.id for base in cls.bases if isinstance(base, ast.Name))
        for member in cls.body:
            if isinstance(member, ast.FunctionDef) and member.name == "__init__" and any(
                    isinstance(node, ast.Call) and canonical(imports.resolve_dotted(ast_dotted(node.func) or "") or "")
                    .startswith("tensorflow.") for node in ast.walk(member)):
                return True
    return False


def _unread_collection(program, call: ast.Call) -> bool:
    """Whether `tf.add_to_collection("key", value)` adds to a collection that no code of the run
    reads: its key, a string, is quoted nowhere else in the run's files."""
    key = call.args[0] if call.args else None
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value):
        return False
    quoted = re.compile(rb"""(['"])%s\1""" % re.escape(key.value.encode()))
    return sum(len(quoted.findall(program.source(path) or b"")) for path in program.files_mentioning(key.value)) == 1


def _callees(program, path: str, tree, imports: ImportMap, cls: Optional[str], call: ast.Call):
    """The (path, class or None, def) a call reaches among the run's code: `self.m(...)` in a
    method of `cls`, `f(...)` a top-level function of the module, `mod.f(...)` one of a module of
    the run the file imports as `mod` (its `imports` say which)."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and cls:
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == cls:
                for member in node.body:
                    if isinstance(member, ast.FunctionDef) and member.name == func.attr:
                        yield path, cls, member
    elif isinstance(func, ast.Name):
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == func.id:
                yield path, None, node
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        module = imports.resolve_dotted(func.value.id)
        where = program.module_path(path, module) if module else None
        other = program.tree(where) if where else None
        for node in getattr(other, "body", ()):
            if isinstance(node, ast.FunctionDef) and node.name == func.attr:
                yield where, None, node


# Reader makers chosen at run time: Inception's `reader = dataset.reader()` on a parameter, where
# every class of the run that defines `reader` makes the same TensorFlow reader (reader_makers.py).
# A maker stays as it is (it takes nothing and returns a reader), so no caller can break: the
# proof is only that whatever object of the run the call reaches makes that reader.

def maker_families(files: List[str], program) -> Dict[str, Tuple[Tuple[str, str, str], ...]]:
    """caller path -> ((method, a maker's path, its class), ...) for each method `m` that every
    definition in the run makes the same reader with (`return tf.TFRecordReader()`, no argument),
    when every mention of `.m` in the run is a call `x.m()` with no argument and no call in the run
    passes a `reader=` keyword (a slim Dataset's `reader` attribute is a reader class too: its
    `dataset.reader()` makes whatever class it was given). The callers are the files with such a
    call on a plain name."""
    candidates: Dict[str, Tuple[str, str]] = {}
    for path in files:
        source = program.source(path)
        if source is None or b"Reader" not in source or not _RETURNS_READER.search(source):
            continue  # (parsed only when its text returns a reader made with nothing)
        tree = program.tree(path)
        for cls in getattr(tree, "body", ()):
            if isinstance(cls, ast.ClassDef):
                for member in cls.body:
                    if isinstance(member, ast.FunctionDef) and _ast_maker(tree, member) is not None:
                        candidates.setdefault(member.name, (path, cls.name))
    found: Dict[str, List[Tuple[str, str, str]]] = {}
    for method, (where, class_name) in sorted(candidates.items()):
        for path in _maker_callers(method, program) or ():
            found.setdefault(path, []).append((method, where, class_name))
    return {path: tuple(asks) for path, asks in found.items()}


_RETURNS_READER = re.compile(rb"return\s+[\w.]*Reader\s*\(\s*\)")


def _ast_maker(tree, function: ast.FunctionDef) -> Optional[str]:
    """The reader class a method returns, resolved by its module's imports (`tensorflow.TFRecordReader`),
    when its body, a docstring aside, is `return <class>()` with no argument; None otherwise."""
    body = function.body[1:] if ast.get_docstring(function, clean=False) is not None else function.body
    args = function.args
    if (len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call)
            or body[0].value.args or body[0].value.keywords or function.decorator_list or len(args.args) != 1
            or args.vararg or args.kwarg or args.kwonlyargs):
        return None
    name = ast_dotted(body[0].value.func)
    resolved = canonical(ImportMap(None, tree).resolve_dotted(name) or "") if name else ""
    return resolved if rule_for(resolved) in READERS else None


def _maker_callers(method: str, program) -> Optional[List[str]]:
    """The files that call `x.method()` on a plain name, when every definition of the method in
    the run is a maker of one reader class and every mention of it is such a call (else None).
    Only files whose text names `.method` or defines it are parsed; for `reader`, also those that
    may pass a `reader=` keyword (a slim Dataset's `reader`, any class, is called the same way)."""
    named = re.compile(rb"\.\s*%s\b|\bdef\s+%s\b" % ((re.escape(method.encode()),) * 2))
    slim_keyword = re.compile(rb"[(,]\s*reader\s*=(?!=)") if method == "reader" else None
    readers, callers = set(), []
    for path in sorted(program.files_mentioning(method)):
        source = program.source(path) or b""
        passes = slim_keyword is not None and slim_keyword.search(source)
        tree = program.tree(path) if passes or named.search(source) else None
        if tree is None:
            continue
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        if passes and any(arg.arg == "reader" for node in calls for arg in node.keywords):
            return None
        called = {id(node.func) for node in calls if isinstance(node.func, ast.Attribute)
                  and node.func.attr == method and not node.args and not node.keywords}
        top = {id(member) for cls in tree.body if isinstance(cls, ast.ClassDef)
               for member in cls.body if isinstance(member, ast.FunctionDef)}
        here = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == method:
                if id(node) not in called:
                    return None
                here = here or isinstance(node.value, ast.Name) and node.value.id != "self"
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == method:
                made = _ast_maker(tree, node) if id(node) in top else None
                if made is None:
                    return None
                readers.add(made)
        if here:
            callers.append(path)
    return callers if len(readers) == 1 else None
