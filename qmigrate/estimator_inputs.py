"""Whether an Estimator input_fn may return its tf.data Dataset rather than tensors.

TF 1.8's core `tf.estimator.Estimator` takes either from an input_fn: `(features, labels)`
tensors, or a Dataset of them. `tf.contrib.learn.Estimator` (and `Experiment`, `learn_runner`)
unpacks `features, labels = input_fn()` and fails on a Dataset, and so does any code that calls
the input_fn itself (a test taking `features, labels = train_input_fn()`). A migrated input_fn
that returned tensors keeps returning tensors (the one-shot iterator's `get_next()`, which both
Estimators accept) unless `core_consumed` proves its callers are core Estimators:

- the module refers to nothing of `tf.contrib.learn`;
- it passes the function (by name, a call of the function that makes it, or a lambda calling
  either) as `input_fn=` to `train`, `evaluate` or `predict` of a name it binds once, to a
  `tf.estimator` class, or to `tf.estimator.TrainSpec` / `EvalSpec`;
- and the run checks that no other module of it names the top-level function (FileAnalysis.
  dataset_input_fns; a mention comes back as a kept name, KEPT_PREFIX).
"""
from typing import Dict, Iterable, Set

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap

KEPT_PREFIX = "input_fn "  # keep_helpers' key for a top-level function another module names
_CORE = "tensorflow.estimator."
_LEARN = "tensorflow.contrib.learn"
_METHODS = ("train", "evaluate", "predict")
_SPECS = ("tensorflow.estimator.TrainSpec", "tensorflow.estimator.EvalSpec")


def core_consumed(module: cst.Module, imports: ImportMap, names: Iterable[str]) -> bool:
    """Whether the module hands one of `names` (the input_fn, the function that makes it) to a
    core Estimator, and refers to nothing of tf.contrib.learn (see the module's docstring)."""
    names = set(names)
    if any((imports.resolve(node) or "").startswith(_LEARN)
           for node in cstutil.nodes_of(module, (cst.Name, cst.Attribute))):
        return False
    estimators = _core_estimators(module, imports)
    for call in cstutil.calls_of(module):
        value = cstutil.argument(call, "input_fn")
        if value is None or not _names_one_of(value, names):
            continue
        if (imports.resolve(call.func) or "") in _SPECS:
            return True
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _METHODS:
            owner = call.func.value
            if isinstance(owner, cst.Name) and owner.value in estimators:
                return True
            if isinstance(owner, cst.Call) and (imports.resolve(owner.func) or "").startswith(_CORE):
                return True
    return False


def _core_estimators(module: cst.Module, imports: ImportMap) -> Set[str]:
    """Names bound once in the module, by `name = tf.estimator.<Class>(...)`."""
    bound: Dict[str, list] = {}
    for assign in cstutil.nodes_of(module, cst.Assign):
        for target in assign.targets:
            if isinstance(target.target, cst.Name):
                bound.setdefault(target.target.value, []).append(assign.value)
    return {name for name, values in bound.items() if len(values) == 1 and isinstance(values[0], cst.Call)
            and (imports.resolve(values[0].func) or "").startswith(_CORE)}


def _names_one_of(value: cst.BaseExpression, names) -> bool:
    """`f`, `make_f(...)`, `lambda: f(...)` or `lambda: make_f(...)(...)` for f among `names`."""
    if isinstance(value, cst.Lambda):
        value = value.body
        while isinstance(value, cst.Call):
            value = value.func
    while isinstance(value, cst.Call):
        value = value.func
    return isinstance(value, cst.Name) and value.value in names
