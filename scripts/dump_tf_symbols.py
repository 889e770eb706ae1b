"""Write the public TensorFlow symbols qmigrate cares about, one per line, for the installed wheel.

Run with the Python of a TensorFlow virtualenv (scripts/make_tf_venv.sh); the output is committed
as qmigrate/data/tf-<version>.txt and read by qmigrate/targets.py. Each line is a canonical name
(`tensorflow.data.Dataset.batch`); a callable is followed by its parameter names
(`tensorflow.data.Dataset.batch(batch_size,drop_remainder)`).

usage: VENV/bin/python scripts/dump_tf_symbols.py > qmigrate/data/tf-1.8.txt
Runs on Python 3.6 (TF 1.8) through 3.11 (TF 2): no f-strings beyond 3.6, no new stdlib.
"""
import __future__
import inspect
import logging
import os
import sys
import types
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")
logging.disable(logging.WARNING)

import tensorflow as tf  # noqa: E402

# The namespaces walked: everything emitted code or the queue APIs live in. Not all of tf.contrib:
# importing every contrib module takes minutes and can fail on a CPU-only wheel.
NAMESPACES = (
    "", "train", "train.queue_runner", "data", "data.experimental", "io", "python_io", "errors",
    "compat", "compat.v1", "compat.v1.data", "compat.v1.train", "compat.v1.io", "compat.v1.data.experimental",
    "contrib.data", "contrib.slim", "contrib.slim.prefetch_queue", "contrib.slim.parallel_reader",
    "contrib.slim.queues", "contrib.slim.dataset_data_provider", "contrib.training", "estimator", "distribute",
)
# Classes whose methods are recorded too: emitted code calls methods on them.
CLASS_NAMESPACES = ("data", "data.experimental", "compat.v1.data", "train", "compat.v1.train")


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


def main():
    # Some versions print warnings to stdout when tf.contrib is first touched: keep them out of the table.
    out, sys.stdout = sys.stdout, sys.stderr
    lines = set()
    for namespace in NAMESPACES:
        module = _resolve(namespace)
        if module is None:
            continue
        prefix = "tensorflow" + ("." + namespace if namespace else "")
        lines.add(prefix)
        for attr in dir(module):
            if attr.startswith("_"):
                continue
            try:
                obj = getattr(module, attr)
            except Exception:  # noqa: BLE001 - deprecated lazy attributes may raise
                continue
            if isinstance(obj, __future__._Feature):  # `from __future__ import division` in a module
                continue
            name = "%s.%s" % (prefix, attr)
            lines.add(name if isinstance(obj, types.ModuleType) else _line(name, obj))
            if isinstance(obj, type) and namespace in CLASS_NAMESPACES:
                for method in dir(obj):
                    if method.startswith("_"):
                        continue
                    try:
                        member = getattr(obj, method)
                    except Exception:  # noqa: BLE001
                        continue
                    lines.add(_line("%s.%s" % (name, method), member))
    sys.stdout = out
    sys.stdout.write("# tensorflow %s, python %d.%d; scripts/dump_tf_symbols.py\n"
                     % (tf.__version__, sys.version_info[0], sys.version_info[1]))
    for line in sorted(lines):
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
