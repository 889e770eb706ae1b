"""Producers that read and decode files in Python: said in the finding, and kept as they are.

A thread that loops over a list of file names and decodes each in Python (`np.load(path)`,
`librosa.load(path)`, `Image.open(path)`) becomes a generator that does the same: qmigrate does not
invent TensorFlow decoding for it. The finding says so, naming the first such call: the user may
want `TFRecordDataset`, `TextLineDataset` or `tf.read_file` with a decoder instead.
"""
from typing import Callable, Dict, Optional, Tuple

import libcst as cst

from qmigrate import cstutil

# Calls that read a file's contents into Python values (by canonical name).
READERS = frozenset((
    "open", "io.open", "numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile",
    "librosa.load", "librosa.core.load", "scipy.io.wavfile.read", "scipy.io.loadmat", "scipy.misc.imread",
    "soundfile.read", "PIL.Image.open", "imageio.imread", "cv2.imread", "skimage.io.imread",
    "pickle.load", "json.load", "h5py.File", "pandas.read_csv",
))


MAX_DEPTH = 3


def first_read(function: cst.FunctionDef, resolve: Callable[[cst.BaseExpression], Optional[str]],
               methods: Dict[str, cst.FunctionDef], line_of: Callable[[cst.CSTNode], int],
               depth: int = 0, seen=None) -> Optional[Tuple[str, int]]:
    """(the call as written, its line) of the first file read of `function`, or of the methods of
    its class it calls as `self.m(...)` (`methods`: the class's, by name; MAX_DEPTH deep); None."""
    seen = set() if seen is None else seen
    seen.add(id(function))
    for call in cstutil.calls_of(function):
        found = _read(call, resolve, line_of)
        if found is not None:
            return found
        func = call.func
        if depth < MAX_DEPTH and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value == "self" and func.attr.value in methods \
                and id(methods[func.attr.value]) not in seen:
            found = first_read(methods[func.attr.value], resolve, methods, line_of, depth + 1, seen)
            if found is not None:
                return found
    return None


def _read(call: cst.Call, resolve, line_of) -> Optional[Tuple[str, int]]:
    name = resolve(call.func) or (call.func.value if isinstance(call.func, cst.Name) else None)
    if name in READERS:
        return cst.Module([]).code_for_node(call.func), line_of(call)
    return None


def said(found: Optional[Tuple[str, int]]) -> str:
    """The words for the finding ("" when nothing is read)."""
    if found is None:
        return ""
    return ("it reads and decodes the data in Python (`%s(...)`, line %d), and stays Python: TensorFlow decoding "
            "(a TFRecordDataset, TextLineDataset, or tf.read_file and a decoder in map) would run without the GIL, "
            "but qmigrate does not invent it" % found)
