"""string_input_producer's check that it has file names, kept where the dataset would drop it.

The producer asserted that its names were not empty ("string_input_producer requires a non-null
input tensor"): a Python list when the graph was built, a tensor when its queue runner ran (the
error then stopped the coordinator and was raised again by `coord.join`). The written dataset
slices the names. An empty Python list still fails when the graph is built (its slices are
float32, no file names), and a shuffled source fails at its first element (a shuffle buffer of
zero is an error); but an unshuffled tensor of no names is an empty epoch, which a training loop
that stops at OutOfRangeError takes for the end of its data, without a word. The check cannot
stay a control dependency of the names: a one-shot iterator captures them by value and drops
their control inputs (measured on TF 1.8: the assertion never runs), so it goes inside a
dataset function, which runs it when the iterator starts.

Contract: `guard(pipeline, fresh, tf)` returns (statements to write before the dataset's, the
pipeline whose source slices its names with the function they define). Only the names known to
be a tensor are guarded: those `match_filenames_once(pattern)` listed, unshuffled.
"""
import dataclasses
from typing import Callable, List, Tuple

from qmigrate.model import FileSource, Pipeline

MESSAGE = "string_input_producer requires a non-null input tensor"


def guard(pipeline: Pipeline, fresh: Callable[[str], str], tf: str) -> Tuple[List[str], Pipeline]:
    """(the function's definition, the pipeline using it), or ([], pipeline) unchanged."""
    source = pipeline.source
    if not isinstance(source, FileSource) or source.pattern is None or source.shuffle is not False:
        return [], pipeline
    name = fresh("listed_files")
    definition = (
        "\ndef %(name)s(names):\n"
        "    # No file names is an error, as in the producer, not an empty epoch.\n"
        "    check = %(tf)s.Assert(%(tf)s.size(names) > 0, [%(message)r])\n"
        "    with %(tf)s.control_dependencies([check]):\n"
        "        return %(tf)s.data.Dataset.from_tensor_slices(%(tf)s.identity(names))"
        % {"name": name, "tf": tf, "message": MESSAGE})
    return [definition], dataclasses.replace(pipeline, source=dataclasses.replace(source, listed_by=name))
