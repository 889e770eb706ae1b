"""Saved graphs a program imports: their queue runners come with them.

    saver = tf.train.import_meta_graph(meta_path)      # the graph of a training run, saved earlier
    saver.restore(sess, checkpoint)
    threads = tf.train.start_queue_runners(sess, coord)   # starts the runners saved with it

A MetaGraphDef (and a SavedModel's) keeps the graph's collections, QUEUE_RUNNERS among them:
importing it adds the saved queues and their runners to the graph, and the program's
start_queue_runners starts them. No code of the run shows what the saved graph holds (a
checkpoint written before the migration still holds queues), so a file that imports one counts
as building queues: its program keeps its queue runners, with this reason. Found in the text
(comments too: a file too many keeps its runners, never one too few).
"""
import ast
import re
from typing import Optional, Tuple

# tf.train.import_meta_graph, meta_graph.import_scoped_meta_graph, tf.saved_model.loader.load
# (tf.saved_model.load in 1.x), in any spelling that ends so; `loader.load(` alone only in a file
# that names saved_model (`from tensorflow.python.saved_model import loader`), not a data loader's.
_LOADS = re.compile(rb"\b(import_meta_graph|import_scoped_meta_graph)\b|\bsaved_model\s*\.\s*(?:loader\s*\.\s*)?load\b")
_LOADER_LOAD = re.compile(rb"\bloader\s*\.\s*load\s*\(")

# The words of those spellings, for a word index to find the files to read (Program.files_mentioning).
WORDS = ("import_meta_graph", "import_scoped_meta_graph", "saved_model")


def first_load(source: Optional[bytes]) -> Optional[Tuple[int, str]]:
    """(line, what it calls) of the first place the text imports a saved graph, or None."""
    source = source or b""
    found = _LOADS.search(source)
    if found is None and b"saved_model" in source:
        found = _LOADER_LOAD.search(source)
    if found is None:
        return None
    what = found.group(found.lastindex) if found.lastindex else found.group(0).rstrip(b"( \t")
    return source.count(b"\n", 0, found.start()) + 1, re.sub(rb"\s+", b"", what).decode("ascii")


def holder(tree: Optional[ast.AST], line: int) -> Optional[str]:
    """The name of the innermost function or method whose body holds `line` (None: module level,
    or no tree)."""
    found = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.end_lineno:
            if found is None or node.lineno > found.lineno:
                found = node
    return found.name if found is not None else None


def reason(line: int, what: str, where: str = "", holder: Optional[str] = None) -> str:
    """Why queue runners stay beside a saved graph's import (`where`: `path:` of another file,
    `holder`: the function there that imports it, which this file names)."""
    if not where:
        who = "it imports a saved graph (`%s`, line %d)" % (what, line)
    elif holder is None:
        who = "a module it imports imports a saved graph (`%s`, %s%d)" % (what, where, line)
    else:
        who = "it calls %s(), which imports a saved graph (`%s`, %s%d)" % (holder, what, where, line)
    return who + ": the queue runners saved in it, which qmigrate cannot see, start here too"
