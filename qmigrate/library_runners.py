"""Queue runners a shipped library starts for its callers' pipelines: they stay.

    # mylib/trainer.py, in the package that mylib's setup.py ships
    def fit(sess, train_op, steps):
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        ...

Such a function starts the runners of whatever graph its caller built: it serves programs
outside the run (the package's users, as its documentation tells them), whose queues qmigrate
never sees. Removed because no program of the run builds queues any more, a user's script that
builds its own queue and calls fit() waits for ever on its first dequeue (measured under TF 1.8:
Edward's Inference.run(), the runners gone, hung a script that printed its result before).

Kept (`reason` says why) when the file is a module of a package (its folder, and every folder up
to the top package, holds an __init__.py) whose top package's parent holds setup.py, setup.cfg or
pyproject.toml; the file is no test (test_*.py, *_test.py, under a tests/ or test/ folder) and no
script (no top-level `if __name__ == "__main__":`, as a trainer package's task.py has); and a
call of start_queue_runners (or slim's QueueRunners) stands in a public function of it: a
top-level function or a method of a top-level class, neither named with a leading `_` nor `main`.
Everything else is as before: a program's own scripts and helpers lose their runners with its
queues.
"""
import ast
import os
from typing import Optional

_STARTS = frozenset(("start_queue_runners", "QueueRunners"))
_PROJECT_FILES = ("setup.py", "setup.cfg", "pyproject.toml")


def package_root(path: str) -> Optional[str]:
    """The folder holding setup.py (or setup.cfg, pyproject.toml) above the top package of the
    module at `path`, if it is a module of a shipped package; else None."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        return None
    while os.path.isfile(os.path.join(os.path.dirname(folder), "__init__.py")):
        folder = os.path.dirname(folder)
    parent = os.path.dirname(folder)
    return parent if any(os.path.isfile(os.path.join(parent, name)) for name in _PROJECT_FILES) else None


def _is_test(path: str) -> bool:
    name = os.path.basename(path)
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    return name.startswith("test_") or name.endswith("_test.py") or any(p in ("tests", "test") for p in parts[:-1])


def _runs_as_script(tree: ast.Module) -> bool:
    """Whether the module has a top-level `if __name__ == "__main__":` (a package's entry point,
    such as a trainer package's task.py: its functions serve its own program)."""
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            parts = [node.test.left] + list(node.test.comparators)
            if any(isinstance(p, ast.Name) and p.id == "__name__" for p in parts) and any(
                    isinstance(p, ast.Constant) and p.value == "__main__" for p in parts):
                return True
    return False


def _public(name: str) -> bool:
    return not name.startswith("_") and name != "main"


def _start_in(node: ast.AST) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in _STARTS:
                return True
    return False


def public_start(tree: ast.Module) -> Optional[str]:
    """The name (`fit`, `Trainer.fit`) of the first public function of the module that starts
    queue runners, if any."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, functions) and _public(node.name) and _start_in(node):
            return node.name
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for method in node.body:
                if isinstance(method, functions) and _public(method.name) and _start_in(method):
                    return "%s.%s" % (node.name, method.name)
    return None


def reason(path: str, tree: Optional[ast.Module]) -> Optional[str]:
    """Why the file's queue runners stay for callers outside the run (None: they need not)."""
    if tree is None or _is_test(path) or _runs_as_script(tree):
        return None
    root = package_root(path)
    if root is None:
        return None
    function = public_start(tree)
    if function is None:
        return None
    shipped = next(name for name in _PROJECT_FILES if os.path.isfile(os.path.join(root, name)))
    return ("%s() is a public function of a package that %s ships (%s): it starts the queue runners of its "
            "callers' graphs (none where they build no queue), and callers outside the run may build queues of "
            "their own" % (
                function, shipped, os.path.relpath(os.path.join(root, shipped), os.path.dirname(path))))
