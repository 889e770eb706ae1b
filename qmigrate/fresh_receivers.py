"""Calls of a method, each on an object made for it.

A reader or queue an object holds is shared by every call, on that object, of the method that
reads it: two calls shared its records, where two datasets would each read them all. A module's
calls cannot share one when each is `Reader(...).feed()`, or `r.feed()` on a local name `r` bound
once, in the same function, to a new object of the class (`r = Reader(...)` or
`r = mod.Reader(...)`), with no loop around the binding or the call, and `r` read nowhere else in
that function (not handed to other code, no other attribute of it read): the object is then fed
once and used for nothing else.

Contract: `each_on_a_new_object(tree, method, classes)` is True only when every mention of
`.method` in the module's stdlib tree is such a call and no string in it spells `method` (no
`getattr(r, "feed")`); anything else, or no mention at all, is False where it cannot be proven.
It reads the tree and never changes it.
"""
import ast
from typing import Dict, List, Optional, Set

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Scope:
    """A function's (or the module's) own nodes: bindings per name, calls of `.method` per
    receiver, and whether each sits in a loop of the scope."""

    def __init__(self):
        self.stores: Dict[str, List[ast.AST]] = {}  # name -> the nodes that bind it
        self.made: Dict[str, ast.Assign] = {}  # name -> its one-target assignment of a call
        self.calls: Dict[str, int] = {}  # receiver name -> its calls of `.method`
        self.loads: Dict[str, int] = {}  # name -> how often the scope reads it
        self.declared: Set[str] = set()  # global / nonlocal names
        self.looped: Set[int] = set()  # ids of the nodes under a loop of the scope
        self.made_here: List[ast.Call] = []  # receivers made by the call itself: `Reader(...).feed()`
        self.bad = False


def each_on_a_new_object(tree: Optional[ast.AST], method: str, classes: Set[str],
                         other_objects: Set[int] = frozenset()) -> bool:
    """Whether each mention of `.method` in `tree` is a call on an object made for it, of one of
    `classes` (their unqualified names: every class of the defining module that defines the
    method, classes_defining; an object of any of them made for one call shares nothing).
    `other_objects`: the lines of mentions known to be the method of other objects (a queue's own
    `.dequeue()`), which are passed over."""
    if not isinstance(tree, ast.Module):  # unparsable: nothing is proven
        return False
    mentioned, scopes = False, [tree]
    for node in ast.walk(tree):  # one walk: the spelling in strings, the mentions, the scopes
        if isinstance(node, ast.Constant) and node.value == method:
            return False
        if isinstance(node, ast.Attribute) and node.attr == method:
            mentioned = True
        elif isinstance(node, _SCOPES):
            scopes.append(node)
    return mentioned and all(_proven(_walk(scope, method, other_objects), classes) for scope in scopes)


def classes_defining(tree: Optional[ast.AST], method: str) -> Set[str]:
    """The names of the module's top-level classes that define `method`."""
    if not isinstance(tree, ast.Module):
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.ClassDef)
            and any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method
                    for item in node.body)}


def _walk(top: ast.AST, method: str, other_objects: Set[int]) -> _Scope:
    scope = _Scope()
    if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = top.args
        for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [arguments.vararg,
                                                                                    arguments.kwarg]:
            if arg is not None:
                scope.stores.setdefault(arg.arg, []).append(arg)

    def visit(node: ast.AST, looped: bool) -> None:
        if node is not top and isinstance(node, _SCOPES):
            if not isinstance(node, ast.Lambda):
                scope.stores.setdefault(node.name, []).append(node)
            return  # its own scope
        if looped:
            scope.looped.add(id(node))
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            scope.declared.update(node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            scope.stores.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.Name):
            scope.loads[node.id] = scope.loads.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            scope.made[node.targets[0].id] = node
        elif isinstance(node, ast.Attribute) and node.attr == method and node.lineno in other_objects:
            pass
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method \
                and node.func.lineno not in other_objects:
            receiver = node.func.value
            if isinstance(receiver, ast.Name) and not looped:
                scope.calls[receiver.id] = scope.calls.get(receiver.id, 0) + 1
            elif isinstance(receiver, ast.Call) and not looped:
                scope.made_here.append(receiver)  # `Reader(...).feed()`: an object made for the call
            else:
                scope.bad = True
            children = [receiver] + node.args + node.keywords  # the callee itself is counted
        elif isinstance(node, ast.Attribute) and node.attr == method:
            scope.bad = True  # read, not called: it may be called any number of times
        inner = looped or (node is not top and isinstance(node, _LOOPS))
        for child in children:
            visit(child, inner)

    visit(top, False)
    return scope


def _proven(scope: _Scope, classes: Set[str]) -> bool:
    if scope.bad or any(_callee(made.func) not in classes for made in scope.made_here):
        return False
    for name, count in scope.calls.items():
        assign = scope.made.get(name)
        if count != 1 or scope.loads.get(name) != 1 or name in scope.declared or assign is None \
                or len(scope.stores.get(name, ())) != 1:
            return False
        if id(assign) in scope.looped or _callee(assign.value.func) not in classes:
            return False
    return True


def _callee(func: ast.expr) -> str:
    """The last name of a callee (`Reader`, `mod.Reader`); '' for anything else."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr
    return ""
