"""Write the public TensorFlow symbols of the installed wheel, one per line.

Run with the Python of a TensorFlow virtualenv (scripts/make_tf_venv.sh); the output is committed
as qmigrate/data/tf-<version>.txt and read by qmigrate/targets.py. Each line is a canonical name
(`tensorflow.data.Dataset.batch`); a callable is followed by its parameter names
(`tensorflow.data.Dataset.batch(batch_size,drop_remainder)`).

Every public module reachable from `tensorflow` is walked, breadth first, except the SKIPPED ones
(each object is walked once, under its shortest name). The header line `# walked: ...` lists the
namespaces whose every public attribute is in the table: a name under a walked namespace that is
not in the table does not exist in this version (qmigrate reports it, QM906). A name under a
namespace that was not walked (tf.contrib, tensorflow.python, a class) is not judged.

usage: VENV/bin/python scripts/dump_tf_symbols.py > qmigrate/data/tf-1.8.txt
Runs on Python 3.6 (TF 1.8) through 3.11 (TF 2): no f-strings beyond 3.6, no new stdlib.
"""
import __future__
import collections
import inspect
import logging
import os
import pkgutil
import sys
import types
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")
logging.disable(logging.WARNING)

import tensorflow as tf  # noqa: E402

# Modules present (their name is in the table) but not walked: implementation packages that are
# no public API (python, core, compiler, tools, include, pywrap_tensorflow, lite's converters),
# and tf.contrib, whose full import takes minutes and fails on CPU-only wheels. Walking `python`
# in 1.8 adds tens of MB of private names that no table needs.
SKIPPED = ("python", "core", "compiler", "tools", "include", "lite", "contrib", "pywrap_tensorflow",
           "libtensorflow_framework", "examples", "dtensor", "raw_ops")
# raw_ops (every op's raw form, 100-140 KB of a table in 1.13+) and tf.compat.v2 (the 2.x API
# again, 200-330 KB) are named, not walked: measured as most of a table, for names legacy code does
# not use. tf.compat.v1 is walked: code for a 2.x target calls it. The compat namespaces inside a
# compat namespace (tf.compat.v1.compat.v2...) are never walked.
SKIPPED_PATHS = ("compat.v2",)
# The contrib namespaces emitted code or the queue APIs live in: walked one level (their submodules
# are named, not walked).
CONTRIB = ("contrib.data", "contrib.slim", "contrib.slim.prefetch_queue", "contrib.slim.parallel_reader",
           "contrib.slim.queues", "contrib.slim.dataset_data_provider", "contrib.training")
# Classes whose methods are recorded too: emitted code calls methods on them.
CLASS_NAMESPACES = ("data", "data.experimental", "compat.v1.data", "train", "compat.v1.train")
# Packages whose modules count as TensorFlow's API when a namespace re-exports them
# (tf.estimator is tensorflow_estimator from 1.13, tf.summary and tf.keras come from outside in 2.x).
API_PACKAGES = ("tensorflow", "tensorflow_estimator", "tensorboard", "keras", "tf_keras")


def _resolve(path):
    obj = tf
    for part in filter(None, path.split(".")):
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - a namespace this version lacks, or a lazy import that fails
            return None
    return obj


def _params(obj):
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [p.name for p in signature.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _line(name, obj):
    params = _params(obj) if callable(obj) and not isinstance(obj, type) else None
    if isinstance(obj, type):
        params = _params(obj.__init__) if obj.__init__ is not object.__init__ else []
    return name if params is None else "%s(%s)" % (name, ",".join(params))


def _is_module(obj):
    # tf.contrib (1.x) and tf.keras (2.x) are lazy loaders: module subclasses that load on access.
    return isinstance(obj, types.ModuleType)


def _module_name(obj):
    try:
        return object.__getattribute__(obj, "__name__")  # without triggering a lazy loader's import
    except Exception:  # noqa: BLE001 - tf.keras in 2.x knows its name once loaded
        try:
            return getattr(obj, "__name__")
        except Exception:  # noqa: BLE001
            return ""


def _subpackages(module):
    """Submodule names importable under a package (`from tensorflow.examples...` works without
    being an attribute); [] for a lazy loader or a plain module."""
    try:
        path = object.__getattribute__(module, "__dict__").get("__path__")
        return [name for _, name, _ in pkgutil.iter_modules(list(path or ()))]
    except Exception:  # noqa: BLE001
        return []


def _members(namespace, module, lines, recurse):
    """Add the public attributes of a module; returns the submodules to walk: (relative path, module)."""
    prefix = "tensorflow" + ("." + namespace if namespace else "")
    lines.add(prefix)
    found = []
    for attr in sorted(set(dir(module)) | set(_subpackages(module))):
        if attr.startswith("_"):
            continue
        name = "%s.%s" % (prefix, attr)
        try:
            obj = getattr(module, attr)
        except Exception:  # noqa: BLE001 - a deprecated lazy attribute, or a subpackage that is not imported
            lines.add(name)
            continue
        if isinstance(obj, __future__._Feature):  # `from __future__ import division` in a module
            continue
        if _is_module(obj):
            lines.add(name)
            relative = (namespace + "." if namespace else "") + attr
            if (recurse and attr not in SKIPPED and relative not in SKIPPED_PATHS
                    and not (attr == "compat" and "compat." in relative[:-len(attr)])
                    and _module_name(obj).split(".")[0] in API_PACKAGES):
                found.append((relative, obj))
            continue
        lines.add(_line(name, obj))
        if isinstance(obj, type) and namespace in CLASS_NAMESPACES:
            for method in dir(obj):
                if method.startswith("_"):
                    continue
                try:
                    member = getattr(obj, method)
                except Exception:  # noqa: BLE001
                    continue
                lines.add(_line("%s.%s" % (name, method), member))
    return found


def _implementation(module):
    """A module of TensorFlow's implementation that a namespace re-exports (tf.flags in 1.x is
    tensorflow.python.platform.flags): its attributes are API, the modules it imports are not."""
    return _module_name(module).startswith(("tensorflow.python.", "tensorflow.core."))


def main():
    # Some versions print warnings to stdout when tf.contrib is first touched: keep them out of the table.
    out, sys.stdout = sys.stdout, sys.stderr
    lines, walked, seen = set(), [], set()
    queue = collections.deque([("", tf)])
    while queue:  # breadth first: a module reached twice is walked under its shortest name
        namespace, module = queue.popleft()
        if id(module) in seen:
            continue
        seen.add(id(module))
        try:
            queue.extend(_members(namespace, module, lines, recurse=not _implementation(module)))
        except Exception as error:  # noqa: BLE001 - a lazy module whose import fails: named, not walked
            sys.stderr.write("not walked: tensorflow.%s (%s)\n" % (namespace, error))
            continue
        walked.append(namespace)
    for namespace in CONTRIB:
        module = _resolve(namespace)
        if module is not None:
            _members(namespace, module, lines, recurse=False)
            walked.append(namespace)
    sys.stdout = out
    sys.stdout.write("# tensorflow %s, python %d.%d; scripts/dump_tf_symbols.py\n"
                     % (tf.__version__, sys.version_info[0], sys.version_info[1]))
    sys.stdout.write("# walked: %s\n" % ", ".join(sorted("tensorflow" + ("." + n if n else "") for n in walked)))
    for line in sorted(lines):
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
