"""Provider factories migrated with their callers: a method that returns a slim
DatasetDataProvider, and a function of another module that makes the object, calls the method,
get()s the items and batches them.

    # pipelines.py                                  # inputs.py
    class RecordPipeline(Pipeline):                   def batches(files, batch_size):
        def make_data_provider(self, **kwargs):           pipeline = pipelines.RecordPipeline(files)
            ...                                           provider = pipeline.make_data_provider()
            dataset = slim.dataset.Dataset(...)           [x, y] = provider.get(['x', 'y'])
            return DatasetDataProvider(dataset, ...)      return tf.train.batch([x, y], batch_size)

Migrated, the class gets a sibling, `make_data_provider_records(self)`: the method's statements
up to its return, then the records its provider read as a tf.data dataset (slim's
get_data_files, the files shuffled per epoch, read `num_readers` at a time, the records shuffled
in a buffer of `common_queue_min` and repeated `num_epochs` times: synth.head_statements, as for a
provider made in place), returned with the slim Dataset. The method stays as it is: its public
result is a provider, for callers outside the run or that read it otherwise. The caller binds
`records, slim_dataset = pipeline.make_data_provider_records()` where it called the method,
decodes with `slim_dataset.decoder` in its map function and batches as its queue did
(recognise._link_factory: the chain of a provider made in place, from a held dataset).

Contract (set side: `plan` reads stdlib trees, `_prove` the factory's module with libcst):
- the caller is a function holding a batch the first pass left, that binds `name = obj.method()`
  (no argument), `obj` being bound once there (not a parameter) by `obj = Class(...)` or
  `obj = module.Class(...)`, a class of another module of the run;
- that class defines `method` itself, taking `self` alone (or with `**kwargs` that are always
  empty: no call `.method(...)` in the run passes an argument), with one return, its last
  statement, of a DatasetDataProvider call with no other starred argument, whose dataset
  slim_provider.DatasetProof proves as for a provider read in a map function; a computed
  `shuffle=` (`self.params['shuffle']`) is bound to a name of its own where the provider was made;
- the sibling's name is free in that module, and the module with the sibling compiles.
The caller's next pass (engine: ForeignHelpers.factories) tells which of those calls a pipeline
took (FileAnalysis.factories_used); api keeps that pass only when it took them all, then writes
each factory taken into its module's final source (`with_sibling`); should that fail, the
callers go back to their first pass.
"""
import ast
import dataclasses
import re
import textwrap
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import astindex, cstutil
from qmigrate.factory_reasons import code, own_returns
from qmigrate.model import FileSource
from qmigrate.names import ast_dotted
from qmigrate.summary import own_nodes
from qmigrate.rules.base import Unsupported


class FactoryProvider:
    """The recogniser's producer slot for a call of a provider factory: its records come from the
    factory's sibling as a held dataset (shuffled and repeated there, as its provider did)."""

    @staticmethod
    def bind(call) -> dict:
        return {}

    @staticmethod
    def model(args, source, resolve) -> FileSource:
        return FileSource(files="", shuffle=False, held=True)


class FactoryRecords:
    """The reader slot for it: nothing reads here (the records come read, the map decodes them)."""

    @staticmethod
    def bind(call) -> dict:
        return {}

    @staticmethod
    def model(args, source, resolve) -> None:
        return None


SIBLING_SUFFIX = "_records"
# The batching calls whose tensors may come from a factory's provider.
_BATCH_CODES = ("QM301", "QM302", "QM309")


@dataclass(frozen=True)
class Factory:
    """A provider factory proven to read what its sibling gives: `Class.method` of `path`, and
    the sibling method's source (a top-level def, to be indented into the class after `method`)."""

    path: str
    class_name: str
    method: str
    sibling: str
    text: str


def _ast_function_at(tree: ast.AST, line: int) -> Optional[ast.FunctionDef]:
    """The innermost function whose lines hold `line`."""
    found = None
    for node in astindex.nodes(tree, ast.FunctionDef):
        if node.lineno <= line <= getattr(node, "end_lineno", 0):
            if found is None or node.lineno > found.lineno:
                found = node
    return found


def _factory_calls(function: ast.FunctionDef) -> List[Tuple[str, str]]:
    """(object, method) of each `name = obj.method()` (no arguments) in the function's own body."""
    found = []
    for node in own_nodes(function.body):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and not node.value.args and not node.value.keywords
                and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name)):
            found.append((node.value.func.value.id, node.value.func.attr))
    return found


def _class_made(function: ast.FunctionDef, name: str) -> Optional[ast.expr]:
    """The callee of `name = Callee(...)`, when that is the one binding of `name` in `function`
    (not a parameter, bound nowhere else, no `global`/`nonlocal`)."""
    args = function.args
    params = {a.arg for a in args.args + args.kwonlyargs} | {a.arg for a in (args.vararg, args.kwarg) if a}
    if name in params:
        return None
    stores = [node for node in own_nodes(function.body) if isinstance(node, ast.Name) and node.id == name
              and not isinstance(node.ctx, ast.Load)]
    if any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in own_nodes(function.body)) or len(stores) != 1:
        return None
    for node in own_nodes(function.body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and node.targets[0] is stores[0]:
            if isinstance(node.value, ast.Call):
                return node.value.func
    return None


def _factory_method(tree: ast.AST, class_name: str, method: str) -> Optional[ast.FunctionDef]:
    """`Class.method` defined in the class itself, taking only `self` (and maybe `**kwargs`), whose
    one return, its last statement, returns a call named `...DatasetDataProvider` (libcst and the
    module's imports prove which, in `_prove`)."""
    for stmt in getattr(tree, "body", []):
        if isinstance(stmt, ast.ClassDef) and stmt.name == class_name:
            for member in stmt.body:
                if isinstance(member, ast.FunctionDef) and member.name == method:
                    args = member.args
                    if (len(args.args) != 1 or args.vararg or args.kwonlyargs or args.defaults
                            or member.decorator_list):
                        return None
                    returns = own_returns(member)
                    if len(returns) != 1 or member.body[-1] is not returns[0]:
                        return None
                    value = returns[0].value
                    name = ast_dotted(value.func) if isinstance(value, ast.Call) else None
                    return member if name and name.endswith("DatasetDataProvider") else None
    return None


def _calls_pass_nothing(program, files, method: str) -> bool:
    """Whether every call `x.method(...)` in the run's files passes no argument (a `**kwargs` of
    the factory is then always empty)."""
    for path in files:
        source = program.source(path)
        tree = program.tree(path) if source is not None and method.encode() in source else None
        if tree is None:
            continue
        for node in astindex.nodes(tree, ast.Call):
            if (isinstance(node.func, ast.Attribute) and node.func.attr == method
                    and (node.args or node.keywords)):
                return False
    return True


def plan(files: List[str], program, results, target) -> Tuple[Dict[str, Tuple[Tuple[str, ...], ...]],
                                                              Dict[Tuple[str, str, str], Factory],
                                                              Dict[Tuple[str, str, str, str], Tuple[str, str, str]]]:
    """The callers to analyse again with the factories they call, and those factories.

    Returns (path -> ((function, object, method, sibling, class), ...), (factory path, class, method) ->
    Factory, (caller path, function, object, method) -> its factory's key). A caller is asked to
    take a factory only when a function with a batch the first pass left calls `obj.method()`
    with no argument, into a name (which recognise must see read by get() and batched), `obj`
    is bound once in that function, to an instance of
    a class of a module of the run, whose own `method` is a factory `prove` proves, every call of
    `method` in the run passes no argument, and the sibling's name is free in that module."""
    asks: Dict[str, List[Tuple[str, ...]]] = {}
    factories: Dict[Tuple[str, str, str], Optional[Factory]] = {}
    whose: Dict[Tuple[str, str, str, str], Tuple[str, str, str]] = {}
    from qmigrate.names import ImportMap
    for path in files:
        result = results.get(path)
        left = [d.line for d in (result.diagnostics if result is not None else ())
                if not d.fixed and not d.note and d.code in _BATCH_CODES]
        tree = program.tree(path) if left else None  # parsed only when a batch is left
        if tree is None:
            continue
        for line in left:
            function = _ast_function_at(tree, line)
            if function is None:
                continue
            for obj, method in _factory_calls(function):
                callee = _class_made(function, obj)
                name = ast_dotted(callee) if callee is not None else None
                resolved = ImportMap(None, tree).resolve_dotted(name) if name else None
                if not resolved or "." not in resolved:
                    continue
                module, class_name = resolved.rsplit(".", 1)
                where = program.module_path(path, module)
                if where is None or where == path:
                    continue
                key = (where, class_name, method)
                if key not in factories:
                    factories[key] = _prove(where, class_name, method, program, files, target)
                if factories[key] is None:
                    continue
                ask = (function.name, obj, method, factories[key].sibling, resolved)
                if ask not in asks.setdefault(path, []):
                    asks[path].append(ask)
                    whose[(path,) + ask[:3]] = key
    return ({path: tuple(found) for path, found in asks.items()},
            {key: factory for key, factory in factories.items() if factory is not None}, whose)


def _prove(path: str, class_name: str, method: str, program, files, target) -> Optional[Factory]:
    """The Factory for `Class.method` of `path`, or None when anything about it is not proven."""
    from qmigrate import synth
    from qmigrate.model import Batching, Pipeline
    from qmigrate.names import ImportMap
    from qmigrate.rules import rule_for
    from qmigrate.rules.slim_provider import DatasetDataProvider
    from qmigrate.slim_modules import ModuleLoader
    from qmigrate.slim_provider import DatasetProof
    tree, source = program.tree(path), program.source(path)
    if tree is None or source is None or _factory_method(tree, class_name, method) is None:
        return None
    sibling = method + SIBLING_SUFFIX
    if re.search(rb"\b%s\b" % sibling.encode(), source):
        return None
    try:
        module = cst.parse_module(source)
    except Exception:
        return None
    cls = next(s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == class_name)
    function = next(m for m in cls.body.body if isinstance(m, cst.FunctionDef) and m.name.value == method)
    imports = ImportMap(module)
    tf = imports.local_name_for("tensorflow")
    ret = function.body.body[-1]
    call = ret.body[0].value if isinstance(ret, cst.SimpleStatementLine) and isinstance(ret.body[0], cst.Return) \
        else None
    if tf is None or not isinstance(call, cst.Call) or rule_for(imports.resolve(call.func)) is not DatasetDataProvider:
        return None
    kwargs = function.params.star_kwarg
    for arg in call.args:
        if arg.star == "**" and kwargs is not None and isinstance(arg.value, cst.Name) \
                and arg.value.value == kwargs.name.value and _calls_pass_nothing(program, files, method):
            continue  # always empty
        if arg.star:
            return None
    try:
        bound = DatasetDataProvider.bind(call.with_changes(args=[arg for arg in call.args if not arg.star]))
        dataset = bound.get("dataset")
        if not isinstance(dataset, cst.Name):
            return None
        line_of = _line_finder(module)
        DatasetProof(function, imports, {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)},
                     line_of, module, ModuleLoader(path)).check(dataset)
        taken = set(re.findall(r"\b\w+\b", module.code_for_node(function)))

        def fresh(preferred: str) -> str:
            name, n = preferred, 2
            while name in taken:
                name, n = "%s_%d" % (preferred, n), n + 1
            taken.add(name)
            return name

        bindings = []
        shuffle = bound.get("shuffle")
        if shuffle is not None and not (isinstance(shuffle, cst.Name) and shuffle.value in ("True", "False")):
            name = fresh("shuffle")  # evaluated once, where the provider was made
            bindings.append("%s = %s" % (name, code(shuffle)))
            bound = dict(bound, shuffle=cst.Name(name))
        file_source = DatasetDataProvider.model(bound, code, imports.resolve)
        reader = DatasetDataProvider.reader_model(bound, code, imports.resolve)
    except Unsupported:
        return None
    records = fresh("records")
    pipeline = Pipeline(dataclasses.replace(file_source, files=fresh("data_files")), reader, None, Batching("1"),
                        dataset_name=records)
    if synth.cannot_write(pipeline, target):
        return None
    stages = [cstutil.as_module_indents(stage, module.default_indent)
              for stage in synth.head_statements(pipeline, tf, target)]
    if not synth._repeated(pipeline):
        stages.append(synth.repeat_statement(pipeline))
    body = [module.code_for_node(stmt) for stmt in function.body.body[:-1]]
    doc = ('"""The records %s() reads, shuffled and repeated as its provider read them (a tf.data\n'
           'dataset in the place of its queues), and the slim Dataset whose decoder decodes them."""\n' % method)
    text = "def %s(self):\n%s" % (sibling, _indent(doc + "".join(_trimmed(b) for b in body)
                                                  + "\n".join(bindings + stages)
                                                  + "\nreturn %s, %s\n" % (records, dataset.value),
                                                  module.default_indent))
    factory = Factory(path, class_name, method, sibling, text)
    try:
        if with_sibling(source, factory) is None:
            return None
    except Exception:  # what it writes must parse and compile in the module as it is
        return None
    return factory


def _trimmed(text: str) -> str:
    """A statement's code as code_for_node gives it, dedented to the left margin."""
    return textwrap.dedent(text if text.endswith("\n") else text + "\n")


def _indent(text: str, indent: str) -> str:
    return "".join((indent + line if line.strip() else line) for line in text.splitlines(True))


def _line_finder(module: cst.Module):
    from libcst.metadata import MetadataWrapper, PositionProvider
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    return lambda node: positions[node].start.line if node in positions else 0


def with_sibling(source: bytes, factory: Factory) -> Optional[bytes]:
    """`source` with the factory's sibling written after its method in its class (None if the
    class or method is not there as a plain definition)."""
    module = cst.parse_module(source)
    body = list(module.body)
    for index, stmt in enumerate(body):
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == factory.class_name \
                and isinstance(stmt.body, cst.IndentedBlock):
            members = list(stmt.body.body)
            at = next((i for i, m in enumerate(members)
                       if isinstance(m, cst.FunctionDef) and m.name.value == factory.method), None)
            if at is None:
                return None
            indent = stmt.body.indent if stmt.body.indent is not None else module.default_indent
            added = cstutil.parse_class_member(factory.text, indent, module).with_changes(
                leading_lines=[cst.EmptyLine(indent=False)])
            members.insert(at + 1, added)
            body[index] = stmt.with_changes(body=stmt.body.with_changes(body=members))
            new = module.with_changes(body=body).bytes
            compile(new, "<sibling>", "exec")
            return new
    return None
