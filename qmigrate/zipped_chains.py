"""Several producer → reader chains whose records one batching combines, one of each per element.

    queue_a = tf.train.string_input_producer(files_a)
    _, line_a = tf.TextLineReader().read(queue_a)
    queue_b = tf.train.string_input_producer(files_b, shuffle=False)
    _, line_b = tf.TextLineReader().read(queue_b)
    pair = combine(line_a, line_b)                     # per-record code, reading both records
    batch = tf.train.batch([pair], batch_size=32)      # one batching call (not a *_join)

Each run of the batching queue's enqueue op read one record of each chain, so every element of
the queue held one record of each, and the run ended when the first chain ran out (OutOfRange).
`Dataset.zip((records_a, records_b))` gives one record of each per element and ends with the
first part that ends; each part keeps its producer's shuffle, epochs and seed, repeated before the
zip (model.ZipSource). The pairing the zip makes is one the queue could make: with num_threads=1
the very same; with more threads the queue's threads could read a's record of one run and b's
of another, a race the zip does not have.

The recogniser follows each chain on its own to the same batching (each match takes the
statements reading both records as per-record code); `merge` makes one match of them, or says
why it cannot. Contract of a merged match: its chains share no statement but those per-record
statements and the batching; each chain is a plain one (a reader or rows of its own, or a reader
helper given the chain's queue, `image = read_data(queue)`, whose call then takes the chain's
record: Match.helper_reads; no other helper, no hand-built queue, no branches, towers or
sharding) with one record per element.
"""
import dataclasses
from dataclasses import dataclass
from typing import List, Optional, Union

from qmigrate.model import SliceSource, ZipPart, ZipSource


@dataclass(frozen=True)
class HelperRead:
    """In a zip, a chain read by a reader helper: the call at leaf `index` takes the record
    `param` in place of the queue `queue` (Match.queue_name, one per chain)."""

    index: int
    queue: str
    helper: str
    param: str


def _leaves(match) -> set:
    return set(match.removed_indices) | set(match.record_indices) | {match.read_index, match.batch_index}


def _plain_reason(match) -> Optional[str]:
    """Why the chain of `match` cannot be a part of a zip, or None."""
    pipeline = match.pipeline
    if match.batch_helper is not None:
        return "their batching is a batching helper's"
    if match.tower_loop is not None or pipeline.sharding is not None or pipeline.shared_iterator_key:
        return "their batching feeds towers"
    if match.branch_batchings or match.branch_fallthrough:
        return "they are batched in branches"
    if match.record_call is not None or match.counted_helpers or pipeline.reader_choice is not None:
        return "a chain reads its records through a helper function that makes its own queue, or one chosen at run time"
    if match.helpers_used and (match.queue_name is None or len(match.helpers_used) != 1):
        return "a chain's queue or batching is a helper function's"
    if match.record_statements or match.kept_statements:
        return "a chain goes through a hand-built queue"
    if match.one_of_repeated:
        return "a chain is a loop of readers"
    if match.producer_branches is not None or match.test_binding is not None:
        return "a chain's producer is made in branches, or its shuffle is a test bound where it is made"
    if match.remote_bindings or match.shared_reader is not None:
        return "a chain's reader or producer is kept on the object or shared"
    if match.unbatched_target is not None or match.finding is not None or match.returned_result is not None \
            or pipeline.returned_record is not None:
        return "a chain's records also leave the function"
    reader = pipeline.reader
    if reader is not None and reader.keyed_records:
        return "a chain's per-record code uses its reader's key, a second tensor per record"
    if reader is not None and (reader.record_shuffle or reader.parallel_reads):
        return "a chain shuffles its records in a queue of its own or reads several files at a time"
    if reader is not None and reader.read_up_to:
        return "a chain reads chunks with read_up_to()"
    function = pipeline.record_function
    if function is None or len(function.params) != 1:
        return "a chain gives more than one tensor per record (the reader's key, or several sliced tensors)"
    if isinstance(pipeline.source, SliceSource) and len(pipeline.source.tensors) != 1:
        return "a chain slices several tensors"
    if isinstance(pipeline.source, ZipSource):
        return "a chain is a zip already"
    return None


def records_of(matches) -> set:
    """The per-record statements of the chains together."""
    return set().union(*(set(m.record_indices) for m in matches))


def merge(matches: List, fresh) -> Union[str, object]:
    """One match zipping the chains of `matches` (each followed on its own to one batching), or
    the reason (a str) they cannot be zipped. `fresh(preferred)` gives an unused name."""
    matches = sorted(matches, key=lambda m: m.read_index)
    first = matches[0]
    if any(m.batch_index != first.batch_index for m in matches):
        return "they are not batched by one call"
    if any(m.element_kind != first.element_kind for m in matches):
        return "they are batched into different structures"
    for match in matches:
        reason = _plain_reason(match)
        if reason:
            return reason
    shared_records = set.intersection(*(set(m.record_indices) for m in matches))
    for match in matches:
        for other in matches:
            if other is match:
                continue
            common = _leaves(match) & _leaves(other)
            if common - shared_records - {first.batch_index}:
                return ("two chains share a producer, reader or read (line-level statements other than the "
                        "per-record code reading both records and the batching)")
    # The batching call is the same statement: its model (size, threads, shuffle, final batch) is one.
    if any(m.pipeline.batching != first.pipeline.batching for m in matches):
        return "the chains' batchings differ"
    parts, params, reads = [], [], []
    for match in matches:
        pipeline = match.pipeline
        param = pipeline.record_function.params[0]
        if match.queue_name is not None:  # a reader helper's call takes the record: any name will do
            param = fresh(param) if param in params else param
            reads.append(HelperRead(match.read_index, match.queue_name, match.helpers_used[0], param))
        params.append(param)
        source = pipeline.source
        parts.append(ZipPart(source, pipeline.reader, fresh("%s_records" % param)))
    if len(set(params)) != len(params):
        return "two chains name their records alike"
    function = dataclasses.replace(first.pipeline.record_function, params=tuple(params))
    if not records_of(matches) and function.returns == ", ".join(params) and not function.static_shapes \
            and function.keep_input is None:
        function = None  # the records batched as they are read: the zip's elements already
    pipeline = dataclasses.replace(first.pipeline, source=ZipSource(tuple(parts)), reader=None,
                                   record_function=function)
    removed, calls = [], ()
    for match in matches:
        removed += list(match.removed_indices)
        if match is not first and match.queue_name is None:  # (a helper's read is a per-record statement)
            removed.append(match.read_index)
        calls += tuple(call for call in match.calls if all(call is not c for c in calls))
    captured = tuple(sorted(set().union(*(set(m.captured_reads) for m in matches))))
    return dataclasses.replace(first, removed_indices=tuple(dict.fromkeys(removed)), queue_name=None,
                               helper_reads=tuple(reads),
                               helpers_used=tuple(helper for m in matches for helper in m.helpers_used),
                               record_indices=tuple(sorted(records_of(matches))), pipeline=pipeline, calls=calls,
                               captured_reads=captured,
                               map_copies=tuple(dict.fromkeys(name for m in matches for name in m.map_copies)),
                               captured_params=tuple(dict.fromkeys(p for m in matches for p in m.captured_params)))
