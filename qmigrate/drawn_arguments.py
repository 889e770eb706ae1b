"""A random draw a caller passes for a per-record parameter: it becomes a function the map calls.

    # train.py (the caller)                      # inputs.py (the pipeline)
    if pyramid:                                  def next_batch(files, side):
        sides = tf.constant([600, 800])              queue = tf.train.string_input_producer(files)
        side = tf.random_shuffle(sides)[0]           image = read_and_resize(queue, side)
    else:                                            return tf.train.batch([image], 4, dynamic_pad=True)
        side = 800
    images = next_batch(files, side)

The batch queue's enqueue ran the caller's draw anew for each record (each image its own short
side). A map function cannot capture it (a one-shot iterator refuses a random op: "does not
support datasets that capture stateful objects"), and would hold one value if it could. So the
caller passes a function that draws (`side = lambda: tf.random_shuffle(sides)[0]`), and the map
function starts by calling it when it is one (`side_2 = side() if callable(side) else side`):
each record draws again, in the map, as it did in the queue; a caller passing a value passes it
as before.

The caller's side is proven (`draw_lines`) when the argument is a plain name of the calling
function (or module) that:
- the function reads nowhere else (nothing else gets the function in place of the tensor), and
  binds only with plain one-target assignments, none `global` or `nonlocal`, none in a nested
  function;
- at least one binding draws (its calls reach a random op: tf.random_shuffle, random_uniform...,
  and no variable, placeholder or py_func), the others make no stateful op;
- each name a draw reads is bound once at most in the function, before it, to nothing stateful
  (the function reads it when the map is traced, inside the call: it must be what it was).
The run (api) asks the pipeline's module to call the parameter (CALLEE_PREFIX) and each caller
to make its draws functions (CALLER_KEY), and keeps both only when the pipeline migrated.
"""
import ast
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from qmigrate.names import ast_last_name
from qmigrate.record_draws import RANDOM_CALLS

# Kept-name prefix asking a pipeline's module to call a parameter that may be a function:
# "(drawn)function" -> "param,param".
CALLEE_PREFIX = "(drawn)"
# Kept name asking a caller to make the draws at these lines functions: "(draws)" -> "12,40".
CALLER_KEY = "(draws)"

_COMMENT = "# drawn anew for each record by the input's map function, as its queue did"


def _scope_of(tree: ast.Module, call: ast.Call) -> Optional[ast.AST]:
    """The innermost function (or the module) whose own code holds `call`; None inside a lambda
    or a class body."""
    found: List[ast.AST] = []

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            if child is call:
                found.append(scope)
                return
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child)
            elif isinstance(child, (ast.Lambda, ast.ClassDef)):
                visit(child, None)
            else:
                visit(child, scope)
    visit(tree, tree)
    return found[0] if found else None


def _own_nodes(scope: ast.AST):
    """The nodes of the scope's own code (not of the functions or classes it defines)."""
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


def _calls(node: ast.AST) -> List[str]:
    return [ast_last_name(inner.func) or "" for inner in ast.walk(node) if isinstance(inner, ast.Call)]


def draw_lines(tree: ast.Module, call: ast.Call, argument: ast.AST,
               stateful: Sequence[str]) -> Optional[Tuple[int, ...]]:
    """The lines of the draws to make functions for the caller to pass `argument` (a Name) to a
    per-record parameter; None when that is not proven. `stateful`: the last names of the calls
    that make a variable, a placeholder or a random op (captured_params.STATEFUL_CALLS)."""
    if not isinstance(argument, ast.Name):
        return None
    name = argument.id
    scope = _scope_of(tree, call)
    if scope is None:
        return None
    every = list(ast.walk(scope))
    if any(isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names for node in every):
        return None
    loads = [node for node in every if isinstance(node, ast.Name) and node.id == name
             and isinstance(node.ctx, ast.Load)]
    if loads != [argument]:
        return None
    own = list(_own_nodes(scope))
    stores = [node for node in every if isinstance(node, ast.Name) and node.id == name
              and isinstance(node.ctx, (ast.Store, ast.Del))]
    assigns = [node for node in own if isinstance(node, ast.Assign) and len(node.targets) == 1
               and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name]
    if len(stores) != len(assigns):  # a loop target, an unpacking, a nested function's, a `del`...
        return None
    bindings: Dict[str, List[int]] = {}
    for node in own:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bindings.setdefault(node.id, []).append(node.lineno)
    lines = []
    for assign in assigns:
        made = _calls(assign.value)
        if any(isinstance(node, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp))
               for node in ast.walk(assign.value)):
            return None
        random = [m for m in made if m in RANDOM_CALLS]
        if not any(m in stateful for m in made):
            continue  # a value: passed as before
        if not random or any(m in stateful and m not in RANDOM_CALLS for m in made):
            return None  # a variable, a placeholder, a py_func: one for the program
        for inner in ast.walk(assign.value):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                bound = bindings.get(inner.id, [])
                if len(bound) > 1 or any(line >= assign.lineno for line in bound):
                    return None
                if bound and _stateful_binding(own, inner.id, stateful):
                    return None
        lines.append(assign.lineno)
    return tuple(lines) if lines else None


def _stateful_binding(own, name: str, stateful: Sequence[str]) -> bool:
    for node in own:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return any(m in stateful for m in _calls(node.value))
    return False


def make_functions(original: cst.Module, module: cst.Module, lines: Sequence[int]) -> cst.Module:
    """`module` (the migration of `original`) with each one-line assignment statement that starts
    at one of `lines` in `original` assigning a function that evaluates its value (`x = lambda:
    value`), a comment above it saying why. The statements are found in `module` by their text,
    which must be as many times there as in `original` and unique in both."""
    wrapper = cst.MetadataWrapper(original, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    wanted = set(lines)
    texts = set()
    for node, position in positions.items():
        if isinstance(node, cst.SimpleStatementLine) and position.start.line in wanted and len(node.body) == 1 \
                and isinstance(node.body[0], cst.Assign):
            texts.add(_text(node))
    if len(texts) != len(wanted):
        raise ValueError("a draw to make a function is not a one-line assignment statement of its own text")
    for text in texts:
        if _count(original, text) != 1 or _count(module, text) != 1:
            raise ValueError("the draw `%s` is not found once in the migrated module" % text)
    return module.visit(_MakeFunctions(texts))


def _text(node: cst.SimpleStatementLine) -> str:
    return cst.Module([]).code_for_node(node.with_changes(leading_lines=[])).strip()


def _count(module: cst.Module, text: str) -> int:
    finder = _Finder(text)
    module.visit(finder)
    return finder.count


class _Finder(cst.CSTVisitor):
    def __init__(self, text):
        self.text, self.count = text, 0

    def visit_SimpleStatementLine(self, node) -> bool:
        self.count += _text(node) == self.text
        return False


class _MakeFunctions(cst.CSTTransformer):
    def __init__(self, texts):
        self.texts = texts

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if _text(original_node) not in self.texts:
            return updated_node
        assign = updated_node.body[0]
        value = cst.Lambda(params=cst.Parameters(), body=assign.value,
                           colon=cst.Colon(whitespace_after=cst.SimpleWhitespace(" ")))
        comment = cst.EmptyLine(indent=True, comment=cst.Comment(_COMMENT))
        return updated_node.with_changes(body=[assign.with_changes(value=value)],
                                         leading_lines=list(updated_node.leading_lines) + [comment])
