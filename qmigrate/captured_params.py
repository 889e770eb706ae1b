"""Parameters the map function captures: what the callers pass for them.

Moved into the map function, per-record code that reads a parameter of its function captures
the value the caller passed, by value, when the function is traced. A one-shot iterator cannot
capture a stateful op (TF 1.x: "does not support datasets that capture stateful objects, such as
a Variable"), and the queue read such a value anew for each record (a global step that moves
during training): so the pipeline stays as it is when a caller in the files migrated together
passes, for such a parameter, what may be a variable, a placeholder or a random op:
- an expression that calls one (`tf.train.get_or_create_global_step()`), or
- a name or attribute (`step`, `net.global_step`) that a module related to the caller by imports
  (Program.related) binds to one (`self.global_step = slim.get_or_create_global_step()`):
  matched by its last name, which over-approximates (a refusal, never a wrong rewrite).
Calls are found by the function's name (`load_batch(...)`, `module.load_batch(...)`) in the
modules that import the defining one, directly or through others; a call
with `*args` or `**kwargs` hides what it passes, and counts as passing such a value.
The defining module's own calls are checked when the pipeline is recognised (`stateful_call`
on its tree, with the bindings of that module); the other modules' after the first pass
(`elsewhere`), which sends the module back with the reason (api's `keeps`, `KEPT_PREFIX`).
Callers outside the run are not seen, nor those of a module the stdlib parser rejects (Python 2
code): a parameter they pass is taken as the code reads it, as before this check.
"""
import ast
import os
import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from qmigrate import astindex, drawn_arguments
from qmigrate.names import ast_last_name
from qmigrate.record_draws import RANDOM_CALLS

# How a function whose captured parameter a caller may pass a stateful value is named among the
# helpers kept for other modules (api's `keeps`).
KEPT_PREFIX = "(captured)"

# The last names of TensorFlow calls that make a variable, a placeholder or a random op.
STATEFUL_CALLS = RANDOM_CALLS | frozenset((
    "Variable", "VariableV1", "get_variable", "model_variable", "local_variable", "global_variable", "variable",
    "placeholder", "placeholder_with_default", "get_global_step", "get_or_create_global_step",
    "create_global_step", "py_func", "py_function", "numpy_function"))

# A captured parameter: (function name, parameter name, its position among those a call passes;
# None: keyword-only).
Captured = Tuple[str, str, Optional[int]]


def makes_stateful(value: ast.AST) -> bool:
    """Whether `value` calls something STATEFUL_CALLS names (by its last name)."""
    return any(isinstance(node, ast.Call) and ast_last_name(node.func) in STATEFUL_CALLS for node in ast.walk(value))


def stateful_bindings(tree: ast.AST) -> Dict[str, int]:
    """Last name -> line of each `name = <stateful call>` / `x.name = <stateful call>` in tree."""
    found: Dict[str, int] = {}
    for node in astindex.nodes(tree, ast.Assign, ast.AnnAssign):
        if node.value is not None and makes_stateful(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    name = ast_last_name(part)
                    if name is not None and isinstance(getattr(part, "ctx", None), ast.Store):
                        found.setdefault(name, node.lineno)
    return found


def _argument(call: ast.Call, param: str, position: Optional[int]) -> Tuple[bool, Optional[ast.AST]]:
    """(whether the call hides what it passes, the argument it passes for the parameter; its
    position None: keyword-only)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return True, None
    for keyword in call.keywords:
        if keyword.arg == param:
            return False, keyword.value
    return False, call.args[position] if position is not None and position < len(call.args) else None


def stateful_call(tree: ast.AST, function: str, param: str, position: Optional[int],
                  bound: Callable[[str], Optional[str]]) -> Optional[Tuple[int, str]]:
    """(line, why) of the first call of `function` in tree that may pass a stateful value for
    `param`; `bound(name)` says where a name is bound to a stateful op (None: nowhere seen)."""
    return drawn_or_stateful(tree, function, param, position, bound, draws=False)[0]


def drawn_or_stateful(tree: ast.AST, function: str, param: str, position: Optional[int],
                      bound: Callable[[str], Optional[str]], draws: bool = True) -> Tuple[Optional[Tuple[int, str]],
                                                                                          Tuple[int, ...]]:
    """((line, why) of the first call of `function` in tree that may pass a stateful value for
    `param`, or None; with `draws`, a call that passes a random draw the caller can make a
    function of (drawn_arguments) counts as none, and the draws' lines come second)."""
    lines: Tuple[int, ...] = ()
    for node in astindex.nodes(tree, ast.Call):  # ast.walk's order, from the tree's index: one walk a tree
        if ast_last_name(node.func) != function:
            continue
        refused, argument = _call_refusal(node, param, position, bound)
        if refused is None:
            continue
        drawn = drawn_arguments.draw_lines(tree, node, argument, STATEFUL_CALLS) if draws and argument is not None \
            else None
        if drawn is None:
            return refused, ()
        lines += drawn
    return None, tuple(sorted(set(lines)))


def _call_refusal(node: ast.Call, param: str, position: Optional[int], bound) -> Tuple[Optional[Tuple[int, str]],
                                                                                      Optional[ast.AST]]:
    """((line, why) when the call may pass a stateful value for `param`, else None; the argument)."""
    hidden, argument = _argument(node, param, position)
    if hidden:
        return (node.lineno, "passes arguments with * or **, which may hold a variable, placeholder or random op"), None
    if argument is None:
        return None, None
    if makes_stateful(argument):
        return (node.lineno, "passes `%s`, which makes a variable, placeholder or random op" % _text(argument)), \
            argument
    for part in ast.walk(argument):
        name = ast_last_name(part)
        where = bound(name) if name is not None and isinstance(getattr(part, "ctx", None), ast.Load) else None
        if where is not None:
            return (node.lineno, "passes `%s`, and `%s` is bound to a variable, placeholder or random op at %s" % (
                _text(argument), name, where)), argument
    return None, argument


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)  # Python 3.9+
    except AttributeError:
        return ast_last_name(node) or "an expression"


_CONSEQUENCE = (": the map function would capture it by value, which a one-shot iterator cannot (the queue read it "
                "anew for each record); pass it a Python value, or make the op in the per-record code")


def reason(function: str, param: str, where: str, why: str) -> str:
    """Why the pipeline stays: `where` is the call's place (`line 12`, `train.py:12`)."""
    return "the per-record code reads `%s`, a parameter of %s(), and %s%s" % (
        param, function, call_clause(where, why), _CONSEQUENCE)


def call_clause(where: str, why: str) -> str:
    """`the call at <where> <why>`: what a call passes (reason's middle part)."""
    return "the call at %s %s" % (where, why)


def clause_of(reason_text: str) -> str:
    """The call_clause inside a text made by `reason`."""
    start = reason_text.find("the call at ")
    end = reason_text.find(_CONSEQUENCE)
    return reason_text[start:end] if start >= 0 and end > start else reason_text


class StatefulBindings:
    """Where the modules of a run bind a name to a stateful op (stateful_bindings), asked name by
    name: only the files whose text may bind the name and calls one of STATEFUL_CALLS are parsed,
    each once for the run."""

    def __init__(self, paths: Sequence[str], mentions: Callable[[str, str], bool],
                 source_of: Callable[[str], Optional[bytes]], tree_of: Callable[[str], Optional[ast.AST]]):
        self._paths, self._mentions, self._source_of, self._tree_of = paths, mentions, source_of, tree_of
        self._of_file: Dict[str, Dict[str, int]] = {}

    def of(self, name: str, within: Set[str]) -> List[Tuple[str, int]]:
        """(path, line) of each module of `within` that binds `name` to a stateful op (its first
        such line)."""
        found = []
        # `name` on the left of an `=` in the same line, or before a comma or closing bracket (a
        # target of several lines): a text test before a file is parsed to know what it binds.
        target = re.compile(rb"\b%s\b(?:[^\n=]*=(?!=)|\s*[,)\]])" % re.escape(name.encode()))
        for path in self._paths:
            if path not in within or not self._mentions(path, name):
                continue
            if path not in self._of_file:
                source = self._source_of(path)
                if source is None or not target.search(source):
                    continue  # binds no `name`: not parsed (it may be, for another name)
                tree = self._tree_of(path) if _CALLS_A_STATEFUL_OP.search(source) else None
                self._of_file[path] = stateful_bindings(tree) if tree is not None else {}
            if name in self._of_file[path]:
                found.append((path, self._of_file[path][name]))
        return found


# A call of one of STATEFUL_CALLS, as text (in code, comments or strings alike: a filter before parsing).
_CALLS_A_STATEFUL_OP = re.compile(rb"\b(?:%s)\s*\(" % b"|".join(sorted(name.encode() for name in STATEFUL_CALLS)))


def elsewhere(files_mentioning: Callable[[str], Iterable[str]], defining: str, mentions, tree_of,
              captured: Iterable[Captured],
              closure: Callable[[str], Set[str]], related: Callable[[str], Set[str]],
              bindings: StatefulBindings, drawn: Optional[Dict[Tuple[str, str], Dict[str, Tuple[int, ...]]]] = None
              ) -> Dict[str, str]:
    """function -> reason, for the captured parameters a call in a module of `paths` other than
    `defining` may pass a stateful value for (modules named by their path from `defining`'s
    folder). `drawn`, when given, gets (function, param) -> {caller: lines} for the parameters
    whose callers pass only random draws they can make functions of (drawn_arguments): those
    are not refused. `files_mentioning(name)`: the files of the run that may name it
    (Program.files_mentioning); `mentions(path, name)`: Program.mentions; `closure(path)`: the module and those it
    imports, directly or not (Program.closure, a file too many being safe): only a module that
    imports `defining` is a caller, and these modules are searched first for where a name the
    call passes is bound (`bindings`: the run's), then the others `related(caller)` to it
    (Program.related: its importers and what they import): a value it is handed comes from one."""
    refused: Dict[str, str] = {}
    folder = os.path.dirname(defining)  # other modules are named from there: the same in every checkout

    def named(path: str, line: int) -> str:
        return "%s:%d" % (os.path.relpath(path, folder), line)

    def binder(caller: str):
        def bound(name: str) -> Optional[str]:
            near = closure(caller)
            found = min(bindings.of(name, related(caller)), key=lambda entry: (entry[0] not in near, entry[0]),
                        default=None)
            return named(*found) if found is not None else None
        return bound

    draws: Dict[Tuple[str, str], Dict[str, Tuple[int, ...]]] = {}
    for function, param, position in captured:
        for path in sorted(files_mentioning(function)):
            if path == defining or function in refused or not mentions(path, function) \
                    or defining not in closure(path):
                continue
            found = tree_of(path)
            if found is None:  # the stdlib parser rejects it (Python 2): its calls are not seen
                continue
            call, lines = drawn_or_stateful(found, function, param, position, binder(path), draws=drawn is not None)
            if call is not None:
                refused[function] = reason(function, param, named(path, call[0]), call[1])
            elif lines:
                draws.setdefault((function, param), {})[path] = lines
    if drawn is not None:
        drawn.update({key: callers for key, callers in draws.items() if key[0] not in refused})
    return refused
