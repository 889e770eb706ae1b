"""What the cross-module link step knows of one module: small, frozen, picklable data.

A summary is built once, in the worker that parses the module, from the stdlib parser's tree:
its imports, its functions and its classes with their methods, what each function calls, which
queue APIs it builds, what it returns, how many pipelines the first pass migrated in it, and its
tower loops. It holds no CST nodes, so it travels between processes and costs little to keep.
"""
import ast
import hashlib
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, Mapping, Optional, Sequence, Tuple

from qmigrate.names import ImportMap, ast_dotted, canonical


@dataclass(frozen=True)
class FunctionSummary:
    """One function or method, as the linker sees it."""

    name: str
    line: int
    params: Tuple[str, ...]
    calls: Tuple[str, ...]  # dotted callee names as written (`cifar10.inputs`), pre-order, repeats kept
    builds: Tuple[str, ...]  # canonical names of the TensorFlow calls it makes that a rule knows
    returns: Tuple[Tuple[str, ...], ...]  # per own `return`: its values' dotted names, `f()` for a call
    pipelines: int = 0  # pipelines the first pass migrated in its own body


@dataclass(frozen=True)
class ClassSummary:
    name: str
    line: int
    bases: Tuple[str, ...]
    methods: Tuple[FunctionSummary, ...]


@dataclass(frozen=True)
class ConsumerSummary:
    """A tower loop's input (towers.TowerConsumer without its nodes)."""

    index: int  # its place in `towers.find_consumers(module, imports)`, which is deterministic
    function: str  # the enclosing top-level function ("" at module level)
    callee: str  # the input call as written, e.g. "cifar10.distorted_inputs"
    kind: str  # "prefetch" | "shared" | "per_tower"
    prefetch: bool  # it dequeues from a prefetch_queue (a reason can be attached to that call)
    indexed: bool = True  # the loop has a tower index to shard by (not `for device in devices:`)


@dataclass(frozen=True)
class ModuleSummary:
    path: str
    digest: str  # of the bytes summarised: a later pass checks the file is still the same
    imports: Tuple[Tuple[str, str], ...]  # local name -> what it stands for (ImportMap.aliases)
    functions: Tuple[FunctionSummary, ...]  # top-level, in source order
    classes: Tuple[ClassSummary, ...]  # top-level, in source order
    consumers: Tuple[ConsumerSummary, ...] = ()


def digest(source: bytes) -> str:
    return hashlib.blake2b(source, digest_size=16).hexdigest()


def summarise(path: str, source: bytes, tree: Optional[ast.AST], imports: ImportMap,
              pipelines: Mapping[str, int] = None, consumers: Sequence[ConsumerSummary] = (),
              is_queue_api=lambda name: False) -> ModuleSummary:
    """The module's summary. `pipelines`: pipelines migrated per function (`f`, `Class.method`).

    Without a stdlib tree (code the stdlib parser rejects) the summary lists no functions: a
    link cannot go through the module, but its own tower loops still take part.
    """
    pipelines = pipelines or {}
    functions, classes = [], []
    for node in tree.body if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(_function(node, imports, pipelines.get(node.name, 0), is_queue_api))
        elif isinstance(node, ast.ClassDef):
            methods = tuple(_function(m, imports, pipelines.get("%s.%s" % (node.name, m.name), 0), is_queue_api)
                            for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)))
            bases = tuple(ast_dotted(b) or "?" for b in node.bases)
            classes.append(ClassSummary(node.name, node.lineno, bases, methods))
    return ModuleSummary(path, digest(source), tuple(sorted(imports.aliases.items())), tuple(functions),
                         tuple(classes), tuple(consumers))


def summarise_source(path: str, source: bytes) -> Optional[ModuleSummary]:
    """The summary of a file the first pass did not analyse (the prefilter skipped it), or None
    when the stdlib parser rejects it."""
    from qmigrate.positions import stdlib_tree  # late: positions imports libcst, workers have it anyway

    tree = stdlib_tree(source)
    if tree is None:
        return None
    return summarise(path, source, tree, ImportMap(tree=tree))


def _function(node, imports: ImportMap, pipelines: int, is_queue_api) -> FunctionSummary:
    calls = []
    for statement in node.body:
        calls += [name for name in (ast_dotted(call.func) for call in _calls(statement)) if name]
    builds = []
    for name in calls:
        resolved = imports.resolve_dotted(name)
        if resolved and is_queue_api(canonical(resolved)):
            builds.append(canonical(resolved))
    args = node.args
    params = tuple(a.arg for a in list(getattr(args, "posonlyargs", [])) + args.args + args.kwonlyargs)
    returns = tuple(_returned(r.value) for r in own_returns(node.body))
    return FunctionSummary(node.name, node.lineno, params, tuple(calls), tuple(builds), returns, pipelines)


def _calls(node: ast.AST) -> Iterator[ast.Call]:
    """Every call inside `node`, outer before inner (libcst's visiting order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Call):
            yield current
        stack.extend(reversed(list(ast.iter_child_nodes(current))))


def own_nodes(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """`nodes` and every node under them, but for functions, classes and lambdas among them or
    under them (neither the definition nor what it holds): what one scope itself holds, given
    its statements (a function's `body`) or its children (`ast.iter_child_nodes(scope)`)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def own_returns(body) -> Iterator[ast.Return]:
    """The `return` statements of a function body, not those of functions defined inside it
    (in source order; no expression holds a statement, so none is looked into)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            yield node
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(reversed([child for child in ast.iter_child_nodes(node)
                                   if isinstance(child, _HOLD_STATEMENTS)]))


_HOLD_STATEMENTS = (ast.stmt, ast.excepthandler) + ((ast.match_case,) if hasattr(ast, "match_case") else ())


def _returned(value: Optional[ast.AST]) -> Tuple[str, ...]:
    if value is None:
        return ()
    values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
    out = []
    for item in values:
        if isinstance(item, ast.Call):
            out.append("%s()" % (ast_dotted(item.func) or "?"))
        else:
            out.append(ast_dotted(item) or "?")
    return tuple(out)


def functions_by_name(summary: ModuleSummary) -> Dict[str, FunctionSummary]:
    """Top-level functions by name, the first definition winning."""
    out: Dict[str, FunctionSummary] = {}
    for function in summary.functions:
        out.setdefault(function.name, function)
    return out
