"""Functions that a decorator of the program's own wraps, defined in another module.

Per-record code that calls such a function cannot move into a map function: the decorator may
make the call a queue stage of its own (sugartensor's `producer_func` builds placeholders, a
FIFOQueue and a QueueRunner per call), which in a map function is built in the function's graph
and never filled. recognise refuses those defined in the module itself; this module answers for
a function imported from a module beside it (`from utils import restore`, `from utils import *`,
`utils.restore`), read with the stdlib parser.
"""
import ast
import os
from typing import Dict, Optional, Tuple

# Decorators that leave a function a plain function: builtins, and (by their module) functools'
# and TensorFlow's own.
PLAIN_NAMES = {"staticmethod", "classmethod", "property"}
PLAIN_MODULES = ("functools", "tensorflow")

_READ: Dict[Tuple[str, int, float], Optional[ast.Module]] = {}  # (path, size, mtime) -> its tree


def plain_resolved(name: str) -> bool:
    """Whether the decorator of this full name (`functools.lru_cache`, `staticmethod`) leaves its
    function plain."""
    return name in PLAIN_NAMES or name.split(".")[0] in PLAIN_MODULES and "." in name


def is_plain(dotted: str, module_of_root: Dict[str, str]) -> bool:
    """Whether a decorator spelled `dotted` (`tf.contrib.framework.add_arg_scope`), whose first
    name a module binds to `module_of_root[first]` by an import, leaves its function plain."""
    root, _, rest = dotted.partition(".")
    origin = module_of_root.get(root)
    return plain_resolved(dotted if origin is None else origin + ("." + rest if rest else ""))


def wrapping_decorator(path: Optional[str], function: str) -> Optional[str]:
    """The first decorator that is not plain on the top-level `def function` of the module file
    at `path` (its source text, `producer_func`), or None: no such function, none such, or the
    file cannot be read or parsed."""
    tree = tree_of(path) if path else None
    if tree is None:
        return None
    roots = _import_roots(tree)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                dotted = _dotted(target)
                if dotted is None or not is_plain(dotted, roots):
                    return dotted or "a decorator"
            return None
    return None


def defines(path: Optional[str], function: str) -> bool:
    """Whether the module file at `path` defines `function` at its top level."""
    tree = tree_of(path) if path else None
    return tree is not None and any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                                    and node.name == function for node in tree.body)


def tree_of(path: str) -> Optional[ast.Module]:
    """The stdlib tree of the module at `path` (None if it cannot be read or parsed), read once
    while the file stays the same."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    key = (path, status.st_size, status.st_mtime)
    if key not in _READ:
        if len(_READ) > 64:
            _READ.clear()
        try:
            with open(path, "rb") as handle:
                _READ[key] = ast.parse(handle.read())
        except (OSError, SyntaxError, ValueError, RecursionError):
            _READ[key] = None
    return _READ[key]


def _import_roots(tree: ast.Module) -> Dict[str, str]:
    """Name bound by a top-level import -> the module (or module.name) it comes from."""
    roots = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                head = alias.name.split(".")[0]  # `import a.b` binds `a`
                roots[alias.asname or head] = alias.name if alias.asname else head
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                roots[alias.asname or alias.name] = "%s.%s" % (node.module, alias.name)
    return roots


def _dotted(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return base + "." + node.attr if base else None
    return None

