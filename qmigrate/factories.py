"""What a function made at run time by a factory may be: the functions the factory returns.

Per-record code often calls a function it got from a factory (slim's
`preprocessing_factory.get_preprocessing(name)`): `fn = get_preprocessing(name)`, then
`image = fn(image, size, size)` per record. Moved into a map function, that call makes whatever
summaries and collection entries the function makes in the function's graph, where the
program's `merge_all()` no longer sees them. graph_state reads the functions a call names; this
module reads a factory, of the module it is in, for the functions it may give:
- `return f` / `return module.f`: that function;
- `return table[key]`, the table a dict literal (written there, or bound once in the factory or
  at the module's top level): each of its values;
- `return closure`, a function the factory defines: the closure itself, and for each call in it
  of `table[key](...)` or `table[key].method(...)` (slim's `preprocessing_fn_map[name].preprocess_image`),
  each value of the table (with the method: that function of each module the table holds).
Anything else it returns (a call's result, a parameter, a lambda) makes the answer unknown.
Modules are named as the factory's module spells them (its imports say which they are).
"""
import ast
from dataclasses import dataclass
from typing import Dict, List, Optional

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Product:
    """A function the factory may give or run: `name` in the module spelled `module` (None: the
    factory's own module), or a closure defined in the factory (`closure`)."""
    name: str
    module: Optional[str] = None
    closure: Optional[ast.AST] = None


def products(tree: ast.Module, factory: str) -> Optional[List[Product]]:
    """The functions the top-level function `factory` of `tree` may return (see the module's
    docstring); None when it is not such a function or one of its returns is not followed."""
    top = {node.name: node for node in tree.body if isinstance(node, _FUNCTIONS)}
    function = top.get(factory)
    if function is None:
        return None
    tables = dict(_dict_literals(tree.body), **_dict_literals(_own_statements(function)))
    closures = {node.name: node for node in _own_statements(function) if isinstance(node, _FUNCTIONS)}
    # A name the factory binds itself is not the module's function of that name.
    local = {target.id for stmt in _own_statements(function) if isinstance(stmt, (ast.Assign, ast.AugAssign,
                                                                                    ast.AnnAssign, ast.For))
             for target in ast.walk(stmt) if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)}
    top = {name: node for name, node in top.items() if name not in local}
    found: List[Product] = []
    returns = [node for node in _own_nodes(function) if isinstance(node, ast.Return)]
    if not returns:
        return None
    for node in returns:
        made = _returned(node.value, top, tables, closures)
        if made is None:
            return None
        found += made
    return found


def defines(tree: ast.Module, name: str) -> bool:
    """Whether the module `tree` defines a top-level function `name`."""
    return any(isinstance(node, _FUNCTIONS) and node.name == name for node in tree.body)


def _returned(value, top, tables, closures) -> Optional[List[Product]]:
    if isinstance(value, ast.Name) and value.id in closures:
        closure = closures[value.id]
        through = _table_calls(closure, tables)
        return None if through is None else [Product(value.id, closure=closure)] + through
    if isinstance(value, ast.Name) and value.id in top:
        return [Product(value.id)]
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        return [Product(value.attr, value.value.id)]
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in tables:
        return _table_values(tables[value.value.id], None)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Dict) and None not in value.value.keys:
        return _table_values(value.value, None)
    return None


def _table_calls(closure, tables) -> Optional[List[Product]]:
    """The functions a closure calls through a table: `table[k](...)`, `table[k].method(...)`."""
    found: List[Product] = []
    for node in ast.walk(closure):
        if not isinstance(node, ast.Call):
            continue
        func, method = node.func, None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript):
            func, method = func.value, func.attr
        if isinstance(func, ast.Subscript):
            if not (isinstance(func.value, ast.Name) and func.value.id in tables):
                return None
            made = _table_values(tables[func.value.id], method)
            if made is None:
                return None
            found += made
    return found


def _table_values(table: ast.Dict, method: Optional[str]) -> Optional[List[Product]]:
    """Each value of a dict literal as a function (with `method`: that function of each module)."""
    found = []
    for value in table.values:
        if method is not None and isinstance(value, ast.Name):
            found.append(Product(method, value.id))
        elif method is None and isinstance(value, ast.Name):
            found.append(Product(value.id))
        elif method is None and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            found.append(Product(value.attr, value.value.id))
        else:
            return None
    return found


def _dict_literals(statements) -> Dict[str, ast.Dict]:
    """name -> dict literal for each `name = {...}` among the statements, bound there once."""
    bound: Dict[str, List[ast.AST]] = {}
    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(stmt.value)
    return {name: values[0] for name, values in bound.items()
            if len(values) == 1 and isinstance(values[0], ast.Dict) and None not in values[0].keys}


def _own_statements(function) -> List[ast.AST]:
    """The statements of a function's body, those nested in its compound statements too, but
    not those of the functions and classes it defines."""
    found, pending = [], list(function.body)
    while pending:
        stmt = pending.pop(0)
        found.append(stmt)
        if isinstance(stmt, _FUNCTIONS + (ast.ClassDef,)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            pending += [child for child in getattr(stmt, field, []) if isinstance(child, (ast.stmt, ast.excepthandler))]
    return found


def _own_nodes(function) -> List[ast.AST]:
    """Every node of a function but those inside the functions, lambdas and classes it defines."""
    found, pending = [], list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, _FUNCTIONS + (ast.ClassDef, ast.Lambda)):
            pending += list(ast.iter_child_nodes(node))
    return found
