"""Provider factories: a method that RETURNS a slim DatasetDataProvider (or a provider class of the
program's own) to callers in other modules, which `get()` its items and batch them.

    # pipelines.py                                   # train.py
    class TFRecordPipeline(Pipeline):                def input_fn(pipeline, batch_size):
        def make_data_provider(self, **kwargs):          provider = pipeline.make_data_provider()
            ...                                          items = provider.get(['tokens', 'length'])
            dataset = slim.dataset.Dataset(...)          return tf.train.batch(items, batch_size, ...)
            return slim.dataset_data_provider.DatasetDataProvider(dataset, ...)

Neither module holds a whole pipeline: the factory's provider is not read where it is made, the
caller's batch reads tensors of a call it cannot see into. qmigrate does not rewrite this pair
(the caller would need a dataset built from what the factory describes, and the factory's result
must stay a provider for its other callers); this module only says exactly why, on both sides:

- `returned_reasons` (worker side, engine): the reason of a provider returned by a function,
  naming the class and method, and what the proof of its slim Dataset finds (a reader class or
  decoder qmigrate could not migrate even with the callers' help).
- `explain` (set side, after the run, stdlib trees only): a batch whose tensors come from
  `obj.method()` (unlinked's reason) is told, when classes of the modules related to the caller
  by imports define `method` and return providers from it, which classes those are, what each
  returns (line), and whether the caller could know which one it is given.

Nothing here decides what is rewritten.
"""
import ast
import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate.model import FileSource
from qmigrate.rules.base import Unsupported

# The reason unlinked gives a batch whose tensors start at a call of a method of an object.
_FROM_CALL = re.compile(r"the tensors it batches come from (?P<object>\w+)\.(?P<method>\w+)\(\) \(line (?P<line>\d+)\), "
                        r"a call qmigrate does not follow to a producer → reader chain")
_PROVIDER = "DatasetDataProvider"
NOT_YET = ("qmigrate does not rewrite a provider factory and its callers together yet (the callers would batch "
           "a dataset built from what the factory describes; the factory's provider must stay for callers that "
           "keep it)")


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


def returned_reasons(module: cst.Module, imports, line_of: Callable[[cst.CSTNode], int], load,
                     providers: Set[int]) -> Dict[int, str]:
    """id(call) -> why it stays, for each call of `providers` (slim DatasetDataProvider calls) that
    is the value of a `return` in a function of the module (a method of a top-level class, or a
    top-level function): a provider factory. The reason names the function and what the proof of
    its slim Dataset finds (slim_provider.DatasetProof, as if the records were decoded in a map
    function): a reader class or decoder that would keep it even with its callers' help."""
    from qmigrate.rules.slim_provider import DatasetDataProvider
    from qmigrate.slim_provider import DatasetProof
    functions = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)}
    owned = [(None, stmt) for stmt in module.body if isinstance(stmt, cst.FunctionDef)]
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            owned += [(stmt.name.value, member) for member in stmt.body.body if isinstance(member, cst.FunctionDef)]
    reasons = {}
    for owner, function in owned:
        for ret in _cst_returns(function):
            call = ret.value
            if not (isinstance(call, cst.Call) and id(call) in providers):
                continue
            reason = ("the provider is returned by %s%s() to its callers, which read it there: a provider factory; "
                      "%s" % ("%s." % owner if owner else "", function.name.value, NOT_YET))
            problems = ["it passes `%s%s` on to the provider, arguments its callers choose and this module does "
                        "not show" % (arg.star, _code(arg.value)) for arg in call.args if arg.star]
            try:
                seen = call.with_changes(args=[arg for arg in call.args if not arg.star])
                dataset = DatasetDataProvider.bind(seen).get("dataset")
                if dataset is None:
                    raise Unsupported("it has no dataset argument")
                DatasetProof(function, imports, functions, line_of, module, load).check(dataset)
            except Unsupported as error:
                problems.append(str(error))
            if problems:
                reason += "; nor could it be read by a dataset here: %s" % "; and ".join(problems)
            reasons[id(call)] = reason
    return reasons


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class _Returns(cst.CSTVisitor):
    def __init__(self):
        self.found: List[cst.Return] = []

    def visit_FunctionDef(self, node) -> bool:
        return False

    visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)


def _cst_returns(function: cst.FunctionDef) -> List[cst.Return]:
    """The return statements of `function` itself (not of functions or classes nested in it)."""
    visitor = _Returns()
    function.body.visit(visitor)
    return visitor.found


def _returns(function: ast.FunctionDef) -> List[ast.Return]:
    """The return statements of `function` itself (not of functions or classes nested in it)."""
    found, stack = [], list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda node: node.lineno)


def _dotted(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return base and "%s.%s" % (base, node.attr)
    return None


def factories(tree: ast.AST, method: str) -> List[Tuple[str, int, str]]:
    """(class, line, what it returns) for each top-level class of `tree` whose method `method`
    returns a call of a provider class (a name ending in `Provider`); an abstract method
    (one that returns nothing) is not a factory."""
    found = []
    for stmt in getattr(tree, "body", []):
        if not isinstance(stmt, ast.ClassDef):
            continue
        for member in stmt.body:
            if not (isinstance(member, ast.FunctionDef) and member.name == method):
                continue
            for ret in _returns(member):
                name = _dotted(ret.value.func) if isinstance(ret.value, ast.Call) else None
                if name and name.rsplit(".", 1)[-1].endswith("Provider"):
                    found.append((stmt.name, ret.lineno, name))
    return found


def _described(path: str, caller_path: str, cls: str, line: int, name: str) -> str:
    where = ("%s:%d" % (os.path.relpath(path, os.path.dirname(caller_path)), line) if path != caller_path
             else "line %d" % line)
    if name.rsplit(".", 1)[-1] == _PROVIDER:
        return "%s (%s: a slim DatasetDataProvider, see QM106 there)" % (cls, where)
    return ("%s (%s: `%s(...)`, a provider class of the program's own, whose reading qmigrate does not "
            "follow)" % (cls, where, name))


def explain(message: str, path: str, program) -> Optional[str]:
    """The reason `message` gives, told which classes of the run make the provider the batched
    tensors come from, when it says they come from `obj.method()` and such classes are found in
    `path` or the modules related to it by imports (Program.related); else None."""
    found = _FROM_CALL.search(message)
    if found is None:
        return None
    method = found.group("method")
    made = []
    for other in sorted(set(program.related(path)) | {path}):
        tree = program.tree(other)
        if tree is None:
            continue
        made += [(other,) + factory for factory in factories(tree, method)]
    if not made:
        return None
    told = ("the tensors it batches come from %s.%s() (line %s), a provider factory: %d class%s of the run "
            "return%s a provider from %s(): %s" % (
                found.group("object"), method, found.group("line"), len(made), "es" if len(made) > 1 else "",
                "" if len(made) > 1 else "s", method,
                "; ".join(_described(factory[0], path, *factory[1:]) for factory in made)))
    if len(made) > 1 and "holds an object made from" not in message[found.end():]:
        told += "; which of them `%s` is, qmigrate does not prove" % found.group("object")
    return message[:found.start()] + told + "; " + NOT_YET + message[found.end():]


def explain_results(results: Dict[str, "FileResult"], program) -> None:
    """Every remaining diagnostic of the run that `explain` can tell more precisely, told so."""
    import dataclasses
    for path, result in list(results.items()):
        changed = False
        diagnostics = []
        for d in result.diagnostics:
            told = explain(d.message, path, program) if not d.fixed and not d.note else None
            if told is not None:
                d, changed = dataclasses.replace(d, message=told), True
            diagnostics.append(d)
        if changed:
            results[path] = dataclasses.replace(result, diagnostics=tuple(diagnostics))


# ---------------------------------------------------------------------------------------------
# The rewrite of a provider factory and its callers (set side).

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
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.lineno <= line <= getattr(node, "end_lineno", 0):
            if found is None or node.lineno > found.lineno:
                found = node
    return found


def _factory_calls(function: ast.FunctionDef) -> List[Tuple[str, str]]:
    """(object, method) of each `name = obj.method()` (no arguments) in the function's own body."""
    found = []
    for node in _own_nodes(function):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and not node.value.args and not node.value.keywords
                and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name)):
            found.append((node.value.func.value.id, node.value.func.attr))
    return found


def _own_nodes(function: ast.FunctionDef):
    """The nodes of `function`'s body, not those of functions, lambdas or classes nested in it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _class_made(function: ast.FunctionDef, name: str) -> Optional[ast.expr]:
    """The callee of `name = Callee(...)`, when that is the one binding of `name` in `function`
    (not a parameter, bound nowhere else, no `global`/`nonlocal`)."""
    args = function.args
    params = {a.arg for a in args.args + args.kwonlyargs} | {a.arg for a in (args.vararg, args.kwarg) if a}
    if name in params:
        return None
    stores = [node for node in _own_nodes(function) if isinstance(node, ast.Name) and node.id == name
              and not isinstance(node.ctx, ast.Load)]
    if any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in _own_nodes(function)) or len(stores) != 1:
        return None
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and node.targets[0] is stores[0]:
            if isinstance(node.value, ast.Call):
                return node.value.func
    return None


def _factory_method(tree: ast.AST, class_name: str, method: str) -> Optional[ast.FunctionDef]:
    """`Class.method` defined in the class itself, taking only `self` (and maybe `**kwargs`), whose
    one return, its last statement, returns a call of a provider class."""
    for stmt in getattr(tree, "body", []):
        if isinstance(stmt, ast.ClassDef) and stmt.name == class_name:
            for member in stmt.body:
                if isinstance(member, ast.FunctionDef) and member.name == method:
                    args = member.args
                    if (len(args.args) != 1 or args.vararg or args.kwonlyargs or args.defaults
                            or member.decorator_list):
                        return None
                    returns = _returns(member)
                    if len(returns) != 1 or member.body[-1] is not returns[0]:
                        return None
                    return member
    return None


def _calls_pass_nothing(program, files, method: str) -> bool:
    """Whether every call `x.method(...)` in the run's files passes no argument (a `**kwargs` of
    the factory is then always empty)."""
    for path in files:
        tree = program.tree(path)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method
                    and (node.args or node.keywords)):
                return False
    return True


def plan(files: List[str], program, results, target) -> Tuple[Dict[str, Tuple[Tuple[str, str, str, str], ...]],
                                                              Dict[Tuple[str, str, str], Factory],
                                                              Dict[Tuple[str, str, str, str], Tuple[str, str, str]]]:
    """The callers to analyse again with the factories they call, and those factories.

    Returns (path -> ((function, object, method, sibling), ...), (factory path, class, method) ->
    Factory, (caller path, function, object, method) -> its factory's key). A caller is asked to
    take a factory only when a function with a batch the first pass left calls `obj.method()`
    with no argument, into a name (which recognise must see read by get() and batched), `obj`
    is bound once in that function, to an instance of
    a class of a module of the run, whose own `method` is a factory `prove` proves, every call of
    `method` in the run passes no argument, and the sibling's name is free in that module."""
    asks: Dict[str, List[Tuple[str, str, str, str]]] = {}
    factories: Dict[Tuple[str, str, str], Optional[Factory]] = {}
    whose: Dict[Tuple[str, str, str, str], Tuple[str, str, str]] = {}
    from qmigrate.names import ImportMap
    for path in files:
        result = results.get(path)
        tree = program.tree(path) if result is not None else None
        if tree is None:
            continue
        for d in result.diagnostics:
            if d.fixed or d.note or d.code not in _BATCH_CODES:
                continue
            function = _ast_function_at(tree, d.line)
            if function is None:
                continue
            for obj, method in _factory_calls(function):
                callee = _class_made(function, obj)
                name = _dotted(callee) if callee is not None else None
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
                ask = (function.name, obj, method, factories[key].sibling)
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
            bindings.append("%s = %s" % (name, _code(shuffle)))
            bound = dict(bound, shuffle=cst.Name(name))
        file_source = DatasetDataProvider.model(bound, _code, imports.resolve)
        reader = DatasetDataProvider.reader_model(bound, _code, imports.resolve)
    except Unsupported:
        return None
    records = fresh("records")
    pipeline = Pipeline(dataclasses.replace(file_source, files=fresh("data_files")), reader, None, Batching("1"),
                        dataset_name=records)
    if synth.cannot_write(pipeline, target):
        return None
    stages = [_indent_nested(stage, module.default_indent) for stage in synth.head_statements(pipeline, tf, target)]
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


def _indent_nested(text: str, indent: str) -> str:
    """synth's text (nested lines indented by four spaces) indented as the module indents."""
    return "\n".join(re.sub(r"^((?:    )+)", lambda m: indent * (len(m.group(1)) // 4), line)
                     for line in text.split("\n"))


def _trimmed(code: str) -> str:
    """A statement's code as code_for_node gives it, dedented to the left margin."""
    import textwrap
    return textwrap.dedent(code if code.endswith("\n") else code + "\n")


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
            text = "".join((indent + line if line.strip() else line) for line in factory.text.splitlines(True))
            added = cst.parse_module("class _:\n" + text, config=module.config_for_parsing).body[0].body.body[0]
            added = added.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
            members.insert(at + 1, added)
            body[index] = stmt.with_changes(body=stmt.body.with_changes(body=members))
            new = module.with_changes(body=body).bytes
            compile(new, "<sibling>", "exec")
            return new
    return None


def kept_provider(diagnostic, factory: Factory):
    """The factory's returned provider, now kept beside its sibling, says so."""
    said = "the provider is returned by %s.%s() to its callers" % (factory.class_name, factory.method)
    if diagnostic.fixed or said not in diagnostic.message or diagnostic.code != "QM106":
        return diagnostic
    start = diagnostic.message.index("not rewritten: ") + len("not rewritten: ")
    end = diagnostic.message.index("; to do: ")
    reason = ("%s; it stays for callers that keep the provider (outside the run, or reading it otherwise); the "
              "run's callers that batch its records call %s() instead, which reads them with tf.data"
              % (said, factory.sibling))
    return dataclasses.replace(diagnostic, message=diagnostic.message[:start] + reason + diagnostic.message[end:])
