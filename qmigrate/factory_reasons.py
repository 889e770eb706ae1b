"""Why a provider factory and its callers stay: a method (or function) that RETURNS a slim
DatasetDataProvider (or a provider class of the program's own) to callers elsewhere, which get()
its items and batch them.

- `returned_reasons` (worker side, engine): the reason of a provider a function returns, naming
  the class and method, the terms on which qmigrate migrates a factory with its callers
  (provider_factories.py), and what keeps this one (`**kwargs` passed on, the proof of its slim
  Dataset: a reader class or decoder).
- `explain` (set side, after the run, stdlib trees only): a batch whose tensors come from
  `obj.method()` (unlinked's reason) is told, when classes of the modules related to the caller
  by imports define `method` and return providers from it, which classes those are, what each
  returns (line), and whether the caller shows which one it is given.
- `kept_provider`: a factory migrated with its callers keeps its provider for others: it says so.

Nothing here decides what is rewritten.
"""
import ast
import dataclasses
import os
import re
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil, summary
from qmigrate.diagnostics import FileResult
from qmigrate.names import ast_dotted
from qmigrate.rules.base import Unsupported

# The reason unlinked gives a batch whose tensors start at a call of a method of an object.
FROM_CALL = re.compile(r"the tensors it batches come from (?P<object>\w+)\.(?P<method>\w+)\(\) \(line (?P<line>\d+)\), "
                        r"a call qmigrate does not follow to a producer → reader chain")
_PROVIDER = "DatasetDataProvider"
TERMS = ("qmigrate migrates a provider factory with a caller that makes the object from the factory's class "
         "(`obj = module.Class(...)`, once, in the function that reads it), calls the factory with no argument, "
         "reads it with one get() and batches the records there: the class then gets a sibling method giving those "
         "records as a tf.data dataset")


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
        for ret in cstutil.own_returns(function.body):
            call = ret.value
            if not (isinstance(call, cst.Call) and id(call) in providers):
                continue
            reason = "the provider is returned by %s%s() to its callers, which read it there: a provider factory" % (
                "%s." % owner if owner else "", function.name.value)
            if owner is None:
                problems = ["qmigrate migrates a factory that is a method of a class, with its callers"]
            else:
                problems = []
            kwargs = function.params.star_kwarg
            own = kwargs.name.value if kwargs is not None and owner is not None else None
            problems += ["it passes `%s%s` on to the provider, arguments its callers choose (qmigrate takes only the "
                         "method's own `**kwargs`, when no call of the method in the run passes an argument)" % (
                             arg.star, code(arg.value)) for arg in call.args
                         if arg.star and not (arg.star == "**" and isinstance(arg.value, cst.Name)
                                              and arg.value.value == own)]
            try:
                seen = call.with_changes(args=[arg for arg in call.args if not arg.star])
                dataset = DatasetDataProvider.bind(seen).get("dataset")
                if dataset is None:
                    raise Unsupported("it has no dataset argument")
                DatasetProof(function, imports, functions, line_of, module, load).check(dataset)
            except Unsupported as error:
                problems.append(str(error))
            if problems:
                reason += ", which qmigrate does not migrate: %s" % "; and ".join(problems)
            else:
                reason += "; no caller in the run reads it on qmigrate's terms: %s" % TERMS
            reasons[id(call)] = reason
    return reasons


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def own_returns(function: ast.FunctionDef) -> List[ast.Return]:
    """The return statements of `function` itself (not of functions or classes nested in it), by line."""
    return sorted(summary.own_returns(function.body), key=lambda node: node.lineno)


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
            for ret in own_returns(member):
                name = ast_dotted(ret.value.func) if isinstance(ret.value, ast.Call) else None
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
    found = FROM_CALL.search(message)
    if found is None:
        return None
    method = found.group("method")
    made = []
    for other in sorted(set(program.related(path)) | {path}):
        source = program.source(other)
        tree = program.tree(other) if source is not None and b"def %s(" % method.encode() in source else None
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
    return message[:found.start()] + told + "; " + TERMS + message[found.end():]


def explain_results(results: Dict[str, FileResult], program) -> None:
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


def kept_provider(diagnostic, factory):
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
