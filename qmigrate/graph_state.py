"""Graph state that per-record code makes: summaries, collection entries, variables (and ops
only the program's graph can run).

Per-record code moves into a map function, whose graph is not the program's. A summary or a
collection entry made there is made in the function's graph: `merge_all()` and `get_collection()`
no longer see it, with no error. A variable made there fails when the one-shot iterator is made
("Cannot capture a stateful node ... by value"). recognise refuses per-record code that makes
any of them, in its own statements or in the functions it calls: those of its module, the methods
of its class it calls on `self`, and those imported from a module beside it (read with the stdlib
parser), followed `MAX_DEPTH` calls deep. The same search finds the random ops per-record code
draws (`random_kind`): a map function's graph does not take the program's graph seed before TF
1.15, so the engine gives it the seed when the code draws.
"""
import ast
import re
from typing import Callable, Dict, FrozenSet, Optional, Set, Tuple

from qmigrate.names import ImportMap, ast_dotted, canonical

MAX_DEPTH = 3

_PREFIXES = ("tensorflow.summary.", "tensorflow.contrib.summary.")
_SUMMARY = re.compile(r"tensorflow\.\w+_summary")  # TF 0.x spellings: tf.image_summary, tf.scalar_summary
_COLLECTIONS = {"tensorflow.add_to_collection", "tensorflow.add_to_collections"}
VARIABLES = {"tensorflow.Variable", "tensorflow.get_variable", "tensorflow.train.get_or_create_global_step",
             "tensorflow.train.get_global_step", "tensorflow.train.create_global_step",
             "tensorflow.contrib.framework.get_or_create_global_step", "tensorflow.contrib.framework.variable",
             "tensorflow.contrib.framework.model_variable", "tensorflow.contrib.slim.variable",
             "tensorflow.contrib.slim.model_variable", "tensorflow.contrib.slim.get_or_create_global_step"}


# Ops TensorFlow rewrites when it optimises the program's graph, which it does not do for a
# dataset function's graph: there they fail when they run ("Found instance of parallel_stack
# which could not be properly replaced").
GRAPH_ONLY = {"tensorflow.parallel_stack"}


def is_summary_or_collection(name: str) -> bool:
    """Whether a call of this canonical name makes a summary or a collection entry."""
    return is_summary(name) or name in _COLLECTIONS


def is_summary(name: str) -> bool:
    """Whether a call of this canonical name makes a summary (not a collection entry of its own)."""
    return name.startswith(_PREFIXES) or bool(_SUMMARY.fullmatch(name))


def makes_state(name: str) -> bool:
    """Whether a call of this canonical name makes a summary, a collection entry or a variable, or
    is an op only the program's graph can run."""
    return is_summary_or_collection(name) or name in VARIABLES or name in GRAPH_ONLY


def kind_of(name: str) -> str:
    """What a call makes_state says of makes: "variable", "graph-only", "summary" or "collection"."""
    return ("variable" if name in VARIABLES else "graph-only" if name in GRAPH_ONLY
            else "summary" if is_summary(name) else "collection")


def made_by(tree: ast.Module, function: str, imports: ImportMap, cls: Optional[str] = None,
            skip: FrozenSet[str] = frozenset(),
            hit: Optional[Callable[[str], Optional[str]]] = None) -> Optional[Tuple[str, int, str, str]]:
    """(the call as written, its line, the function it is in, its kind_of) of the first summary,
    collection entry, variable or graph-only op that the top-level function `function` of the
    module `tree` makes, in its body or in the top-level functions of that module it calls
    (MAX_DEPTH deep); with `cls`, `function` is a method of that top-level class, and the methods
    it calls as `self.m(...)` are followed too. None if none, or no such function. Calls of the
    kinds in `skip` are passed over (the search goes on past them). `hit` (a canonical name's kind,
    or None) looks for other calls instead."""
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    methods = {}
    if cls is not None:
        owner = next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == cls), None)
        if owner is None:
            return None
        methods = {"self." + node.name: node for node in owner.body
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        function = "self." + function
    return _made(dict(functions, **methods), function, imports, 0, set(), hit or _state_hit(skip))


def made_by_closure(tree: ast.Module, closure: ast.AST, imports: ImportMap, skip: FrozenSet[str] = frozenset(),
                    hit: Optional[Callable[[str], Optional[str]]] = None) -> Optional[Tuple[str, int, str, str]]:
    """made_by's answer for a function defined inside another (a factory's closure) of the module
    `tree`: its body, and the top-level functions of that module it calls."""
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    name = "<%s>" % closure.name
    return _made(dict(functions, **{name: closure}), name, imports, 0, set(), hit or _state_hit(skip))


def draws(name: str) -> bool:
    """Whether a call of this canonical name is a TensorFlow random op (tf.random_uniform,
    tf.random_crop, tf.image.random_flip_left_right, tf.random.*, tf.nn.dropout...)."""
    if not name.startswith("tensorflow."):
        return False
    return any(part.startswith("random") for part in name.split(".")[1:]) or name in _OTHER_DRAWS


_OTHER_DRAWS = {"tensorflow.multinomial", "tensorflow.truncated_normal", "tensorflow.nn.dropout",
                "tensorflow.layers.dropout", "tensorflow.contrib.layers.dropout", "tensorflow.contrib.slim.dropout",
                "tensorflow.image.sample_distorted_bounding_box"}


def random_kind(name: str) -> Optional[str]:
    """made_by's `hit` for random ops: "random" for a call of this canonical name that `draws`."""
    return "random" if draws(name) else None


def _state_hit(skip: FrozenSet[str]) -> Callable[[str], Optional[str]]:
    return lambda resolved: kind_of(resolved) if makes_state(resolved) and kind_of(resolved) not in skip else None


def _made(functions: Dict[str, ast.AST], name: str, imports: ImportMap, depth: int,
          seen: Set[str], hit: Callable[[str], Optional[str]]) -> Optional[Tuple[str, int, str, str]]:
    """(the call as written, its line, the function it is in, the kind `hit` gives it) of the
    first call of function `name` (or of the functions of `functions` it calls) that `hit` gives
    a kind for."""
    function = functions.get(name)
    if function is None or name in seen or depth > MAX_DEPTH:
        return None
    seen.add(name)
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        spelled = ast_dotted(node.func)
        if spelled is None:
            continue
        kind = hit(canonical(imports.resolve_dotted(spelled) or ""))
        if kind is not None:
            return spelled, node.lineno, name, kind
        if ("." not in spelled or spelled.startswith("self.")) and spelled in functions:
            found = _made(functions, spelled, imports, depth + 1, seen, hit)
            if found is not None:
                return found
    return None
