"""`tf` bound by a star import of a module of the run.

    # tools/train.py                                # libs/show_box.py
    from libs.show_box import *                     import tensorflow as tf
    ...                                             def draw(...): ...
    coord = tf.train.Coordinator()

The module never imports TensorFlow itself, so qmigrate, which reads TensorFlow's names through a
module's own imports, would see nothing in it (unbound_tf.py reports it and asks for the import).
When every module it star-imports is of the run, and the one `tf` they export is TensorFlow
(a top-level `import tensorflow as tf`, no `__all__` that leaves it out, no other binding of `tf`
in them or in what they star-import), the module is analysed as if its star import were followed
by `import tensorflow as tf`: the same name for the same module object. That is done on its
text (`patch`) and undone on the result (`unpatch`), so the user's file keeps its line.

Contract: `plan` reads each candidate file (one that says `import *` and `tf.`) and the modules it
star-imports; anything it cannot prove leaves the file as unbound_tf.py reports it.
"""
import ast
import dataclasses
import os
from typing import Dict, List, Optional, Set, Tuple

from qmigrate.diagnostics import FileResult
from qmigrate.program import Program, relative_base
from qmigrate.unbound_tf import binds_tf

# (the star import's line, its text, the text analysed instead): a patch of one line.
Patch = Tuple[int, bytes, bytes]

_ADDED = b"; import tensorflow as tf"
_MAX_DEPTH = 4  # star imports of star imports followed this deep


def plan(paths: List[str], program: Program) -> Dict[str, Patch]:
    """path -> the patch of a module of `paths` whose `tf` is TensorFlow through its star imports."""
    found = {}
    for path in paths:
        if not path.endswith(".py"):
            continue
        source = program.source(path)
        if source is None or b"import *" not in source or b"tf." not in source:
            continue
        try:
            patch = _patch_of(path, source, program)
        except (RecursionError, ValueError, IndexError):
            patch = None  # nothing proven: the module is reported as unbound_tf.py says
        if patch is not None:
            found[path] = patch
    return found


def _patch_of(path: str, source: bytes, program: Program) -> Optional[Patch]:
    tree = program.tree(path)
    if tree is None or binds_tf(tree):
        return None
    stars = [node for node in tree.body if isinstance(node, ast.ImportFrom)
             and any(alias.name == "*" for alias in node.names)]
    if not stars:
        return None
    exports = [_exported_tf(_star_target(path, node, program), program, 0) for node in stars]
    if any(export is False for export in exports) or "tensorflow" not in exports:
        return None  # a star import outside the run, or one exporting another `tf`, or none exporting it
    last = max(node.lineno for node, export in zip(stars, exports) if export == "tensorflow")
    lines = source.split(b"\n")
    if last > len(lines) or any(b"\r" in line.rstrip(b"\r") for line in lines[:last]):
        return None  # lone carriage returns end lines for the parser: its line numbers are not these
    line = lines[last - 1]
    statement = line.rstrip(b"\r")
    if not statement.strip().endswith(b"*") or b"#" in statement or b";" in statement or b"\\" in statement:
        return None  # not a plain one-line `from module import *`: nothing to append to safely
    return last, line, statement + _ADDED + line[len(statement):]


def _star_target(path: str, node: ast.ImportFrom, program: Program) -> Optional[str]:
    """The file of the run that `from ... import *` loads, or None."""
    if node.level:
        base = relative_base(path, node.level, node.module or "")
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if candidate in program.paths:
                return candidate
        return None
    return program.module_path(path, node.module or "")


def _exported_tf(path: Optional[str], program: Program, depth: int, seen: Optional[Set[str]] = None):
    """What a star import of the module `path` binds `tf` to: "tensorflow", None (nothing), or
    False (unknown: outside the run, another binding, too deep)."""
    if path is None or depth > _MAX_DEPTH:
        return False
    seen = set() if seen is None else seen
    if path in seen:
        return None
    seen.add(path)
    tree = program.tree(path)
    if tree is None:
        return False
    declared = _all_names(tree)
    if declared is False:
        return False
    imported = [alias for node in tree.body if isinstance(node, ast.Import) for alias in node.names
                if alias.asname == "tf" or (alias.asname is None and alias.name == "tf")]
    others = [node for node in tree.body if not (isinstance(node, ast.Import) and any(
        alias in imported for alias in node.names))]
    if binds_tf(ast.Module(body=[node for node in others if not _is_star(node)], type_ignores=[])):
        return False  # `tf` bound otherwise (an assignment, a def, a conditional import...)
    own = None
    if imported:
        if len(imported) != 1 or imported[0].name != "tensorflow":
            return False
        own = "tensorflow"
    for node in tree.body:
        if _is_star(node):
            export = _exported_tf(_star_target(path, node, program), program, depth + 1, seen)
            if export is False or (export and own and export != own):
                return False
            own = own or export
    if own is not None and declared is not None and "tf" not in declared:
        return None  # `__all__` leaves it out
    return own


def _is_star(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)


def _all_names(tree: ast.Module):
    """The names a literal `__all__` lists, None without one, False when it is not a literal."""
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                if not isinstance(node, ast.Assign) or not isinstance(node.value, (ast.List, ast.Tuple)):
                    return False
                if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts):
                    return False
                return {e.value for e in node.value.elts}
    return None


def patch(source: bytes, change: Patch) -> Optional[bytes]:
    """The text analysed in place of `source` (None if the line is no longer the one planned)."""
    number, line, patched = change
    lines = source.split(b"\n")
    if len(lines) < number or lines[number - 1] != line:
        return None
    lines[number - 1] = patched
    return b"\n".join(lines)


def unpatch(result: Optional[FileResult], original: bytes, change: Patch) -> Optional[FileResult]:
    """`result` of the patched text as the user's file sees it: its old source the original, its
    new source with the star import's line as it was (None if the migration changed that line:
    then the file is better left as it was, which the caller decides)."""
    if result is None:
        return None
    _, line, patched = change
    new = result.new_source
    if new is not None:
        lines = new.split(b"\n")
        if patched not in lines:
            return None
        lines[lines.index(patched)] = line
        new = b"\n".join(lines)
    return dataclasses.replace(result, old_source=original, new_source=new)
