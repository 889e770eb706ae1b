"""Queue code left in top-level functions that no code of the run calls.

A file's queue runners go only from programs that build no queue any more (api's
_run_with_queues): a program builds the queues of every module it imports. But queue code left
inside a top-level function builds queues only when something calls the function:

    # utils.py: the run could not migrate it
    def create_input_pipeline(input_queue, ...):
        ... tf.train.batch_join(...) ...

    # eval_embeddings.py: imports utils for other helpers, never calls create_input_pipeline
    tf.train.start_queue_runners(coord=coord, sess=sess)    # starts nothing: it can go

`stand_ins` says, for each file that still builds queues, which files build them when their
programs run: the file itself when any of that code is at module level or in a class, or in a
function its own module names beside its `def` (a call, a reference, a string such as `__all__`),
or one with decorators (a registry may call it); else the other files of the run that hold one
of the functions' names as a word (in code, strings or comments alike: a caller, an import, a
name too many is safe). None of them: no code of the run calls the functions, and they keep no
program's queue runners. A name built at run time (`getattr(module, "make_" + kind)`) is not
seen, as in uncalled_datasets; a file that loads modules by name keeps its runners anyway (api).
"""
import ast
from typing import Callable, Dict, Iterable, List, Optional, Set

from qmigrate import uncalled_datasets


def stand_ins(building: Iterable[str], lines_left: Callable[[str], List[int]], keeps_own: Set[str],
              tree_of: Callable[[str], Optional[ast.AST]], files_mentioning: Callable[[str], Iterable[str]],
              mentions: Callable[[str, str], bool]) -> Dict[str, Set[str]]:
    """File that builds queues -> the files whose programs build them (see the module's text).
    `lines_left(path)`: the lines of its queue code left; `keeps_own`: files that stand for
    themselves whatever their code (their own queue runners are decided as before)."""
    out: Dict[str, Set[str]] = {}
    for path in building:
        functions = None if path in keeps_own else _holding_functions(tree_of(path), lines_left(path))
        if functions is None:
            out[path] = {path}
            continue
        out[path] = {other for name in functions for other in files_mentioning(name)
                     if other != path and mentions(other, name)}
    return out


def _holding_functions(tree: Optional[ast.AST], lines: List[int]) -> Optional[Set[str]]:
    """The names of the top-level functions holding every line of `lines`, when none of them has
    a decorator or is named by its module but in its `def`; None otherwise (or no tree, no lines)."""
    if tree is None or not lines:
        return None
    spans = [(node.lineno, node.end_lineno, node) for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    found: Set[str] = set()
    for line in lines:
        holder = next((node for start, end, node in spans if start <= line <= end), None)
        if holder is None or holder.decorator_list:
            return None
        found.add(holder.name)
    if any(uncalled_datasets.mentioned(tree, name) for name in found):
        return None
    return found
