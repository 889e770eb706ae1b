"""Reader classes handed to a slim Dataset by a function that no code of the run calls.

    # coco.py
    def get_split(split_name, dataset_dir, reader=None):
        if reader is None:
            reader = tf.TFRecordReader
        return slim.dataset.Dataset(data_sources=..., reader=reader, decoder=decoder, ...)

A reader class given as `reader=` builds queues only where a DatasetDataProvider reads that
Dataset. In a module with queue code of its own, the engine reports it (QM2xx: no provider reads
it in this file), and it counts as queue code the module's programs still build, which keeps
their queue runners. When the function that makes the Dataset is called by no code of the run
(no other file of the run holds its name as a word, in code, strings or comments, and its own
module mentions it nowhere but in its `def`), no program of the run reads through the class: it is
the note QM110 instead (the class stays, as the Dataset requires one), saying that no code calls
it. A name built at run time (`getattr(module, "get_" + name)`) is not seen.

`functions` (api, between the passes) picks them from what the first pass reported
(FileAnalysis.reader_class_functions); `apply` (engine.analyse) turns them into the note.
"""
import ast
from typing import Dict, Iterable, Optional, Tuple

import libcst as cst

from qmigrate import cstutil

DETAIL = "%s(), which makes the Dataset, is called by no code of the run: no program of it reads through the class"


def top_function(module: cst.Module, node: cst.CSTNode) -> Optional[str]:
    """The name of the top-level function that holds `node`, or None."""
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and any(n is node for n in cstutil.nodes_of(stmt, (type(node),))):
            return stmt.name.value
    return None


def functions(reported: Dict[str, Iterable[str]], program) -> Dict[str, Tuple[str, ...]]:
    """path -> the functions of `reported[path]` that no code of the run mentions."""
    out = {}
    for path, names in reported.items():
        tree = program.tree(path)
        if tree is None:
            continue
        uncalled = tuple(sorted(name for name in set(names) if not mentioned(tree, name) and not any(
            program.mentions(other, name) for other in program.paths if other != path)))
        if uncalled:
            out[path] = uncalled
    return out


def mentioned(tree: ast.AST, name: str) -> bool:
    """Whether the module mentions `name` but by its `def` (a call, a reference, `__all__`)."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and node.id == name) or (isinstance(node, ast.Attribute)
                                                                and node.attr == name):
            return True
        if isinstance(node, ast.Constant) and node.value == name:
            return True
    return False


def apply(analysis, uncalled: Tuple[str, ...], note_rule) -> None:
    """The reader-class occurrences of `uncalled` functions, as notes (`note_rule`, QM110)."""
    if not uncalled:
        return
    kept = []
    for occurrence in analysis.occurrences:
        rule, node, _, _ = occurrence
        function = top_function(analysis.module, node) if isinstance(node, (cst.Name, cst.Attribute)) \
            and any(node is n for n in _reader_nodes(analysis)) else None
        if function in uncalled:
            analysis.add_finding(note_rule, node, False, DETAIL % function)
            continue
        kept.append(occurrence)
    analysis.occurrences[:] = kept


def _reader_nodes(analysis):
    cached = getattr(analysis, "_reader_class_nodes", None)
    if cached is None:
        from qmigrate.engine import reader_class_arguments_of
        cached = analysis._reader_class_nodes = [given.node for given in reader_class_arguments_of(analysis)]
    return cached
