"""The pipeline model: what a queue pipeline means, as plain data (source text, never CST nodes).

A recogniser fills it from legacy code; the synthesiser writes tf.data from it.
"""
from dataclasses import dataclass
from typing import Optional, Tuple, Union


@dataclass(frozen=True)
class FileSource:
    """`string_input_producer(files, num_epochs, shuffle, seed)`: file names, shuffled per epoch.

    pattern: set when the names came from `match_filenames_once(pattern)` (then `files` is empty):
    the same MatchingFiles op lists them, in a tensor instead of a local variable.
    data_sources: a slim reader's `data_sources` (files or glob patterns): `files` is then the
    name the list of them is given, made by slim's own `get_data_files`, as parallel_reader did.
    """

    files: str
    num_epochs: Optional[str] = None  # None: forever
    shuffle: Union[bool, str] = True  # a str: the source of a Python condition (a parameter's name)
    seed: Optional[str] = None
    pattern: Optional[str] = None
    data_sources: Optional[str] = None
    reader_check: Optional[str] = None  # a slim dataset whose reader class is checked when the pipeline is built
    # `files` is an attribute (`self.queue`) holding the file names' dataset, built where the
    # producer was (held_sources.py): shuffled and repeated there, so neither happens again.
    held: bool = False
    # The function (written before the dataset: file_guard.py) slicing the names, which fails when
    # there are none, as the producer did.
    listed_by: Optional[str] = None


@dataclass(frozen=True)
class SliceSource:
    """`slice_input_producer(tensor_list, num_epochs, shuffle, seed)`: one element per row of the
    tensors, all rows shuffled anew every epoch."""

    tensors: Tuple[str, ...]
    num_epochs: Optional[str] = None
    shuffle: Union[bool, str] = True  # as FileSource.shuffle
    seed: Optional[str] = None


@dataclass(frozen=True)
class RecordReader:
    """A `tf.*Reader`: how one file becomes records.

    kind: "tfrecord" | "fixed_length" | "text_line" | "whole_file".
    arguments: keyword arguments for the matching Dataset class, as (name, source) pairs.
    skip_lines: TextLineReader's skip_header_lines, applied per file.
    read_up_to: `reader.read_up_to(queue, n)`: records come in chunks of up to n, within a file.
    parallel_reads: with several readers on one queue (batch_join), files read this many at a time.
    record_shuffle: slim's common queue, a RandomShuffleQueue between the readers and the decoding:
    records are mixed in a buffer of its min_after_dequeue (seeded like the file order), before
    the per-record code; the repeat goes with that shuffle, as the queue spans epoch ends. A
    hand-built RandomShuffleQueue of the records as read (before any per-record code) is the same
    stage, with its own test (`record_shuffle_test`: True, or the source of the test that chose
    it over a FIFOQueue; None for slim's, which the producer's `shuffle` decides) and seed.
    keyed_records: when the per-record code uses a TFRecordReader's key, the name of the function
    (written before the dataset) that reads one file as (key, record) pairs, keys as the reader
    made them: `<file name>:<byte offset of the record>`.
    """

    kind: str
    arguments: Tuple[Tuple[str, str], ...] = ()
    skip_lines: Optional[str] = None
    read_up_to: Optional[str] = None
    parallel_reads: Optional[str] = None  # several readers (batch_join): files read this many at a time
    record_shuffle: Optional[str] = None  # slim's common queue: a shuffle buffer of read records
    record_shuffle_test: Union[bool, str, None] = None  # a hand-built queue's own test (None: slim's)
    record_shuffle_seed: Optional[str] = None  # and its seed
    keyed_records: Optional[str] = None  # a TFRecord read whose key is used: the function giving (key, record)
    # One reader read this many times a run of the enqueue op (group_reads.py): records in groups of n
    # in a row across epoch ends, the short last group lost; the epochs repeat before the grouping.
    read_groups: Optional[str] = None
    # The records come from this function of one file name (a reader method chosen at run time:
    # its class's `<method>_records`, dispatched_readers), not from the reader's dataset class.
    records_function: Optional[str] = None


@dataclass(frozen=True)
class RecordFunction:
    """The per-record code between `reader.read()` and batching, as a named function.

    params: the names the code gives the read's key (if used) and value.
    returns: the source of the returned structure (the batching call's tensors).
    static_shapes: what the batching's `shapes=` declared, set on the returned tensors.
    """

    name: str
    params: Tuple[str, ...]
    returns: str
    static_shapes: Tuple[Tuple[str, str], ...] = ()  # (returned name, shape): batch's shapes=, set here
    # maybe_batch's / bucketing's keep_input: returned after `returns` as a tensor (the queue
    # converted it; a map function cannot return a Python bool such as a helper's `True`).
    keep_input: Optional[str] = None
    keep_is_tensor: bool = False  # keep_input is made by a TensorFlow op: returned as it is


@dataclass(frozen=True)
class Batching:
    """`batch` / `shuffle_batch`: how records become batches."""

    batch_size: str
    num_threads: Optional[str] = None  # None: one thread
    # The queue's min_after_dequeue (its mixing guarantee; capacity when that is a literal 0).
    shuffle_buffer: Optional[str] = None  # None: no record shuffle (tf.train.batch)
    seed: Optional[str] = None
    # True/False, or the source of a Python test of names and literals made where the batch was
    # (`allow_smaller_final_batch=final_batch`): the batching stage is then an if/else.
    allow_smaller_final_batch: Union[bool, str] = False
    enqueue_many: bool = False  # each input is a batch of examples: unbatched before batching again
    dynamic_pad: bool = False  # pad variable-length tensors to the longest in the batch
    shapes: Tuple[str, ...] = ()  # `shapes=`: the static shape of each tensor
    keep_input: Optional[str] = None  # maybe_batch: a per-record condition; the map function returns it too
    # bucket_by_sequence_length: the source of its `bucket_boundaries`; each element is then
    # (length, tensors), batched per bucket (qmigrate/bucketing.py).
    bucket_boundaries: Optional[str] = None
    # The source of a Python test (names and literals) under which the records are shuffled: a
    # queue helper's RandomShuffleQueue called in `if test:` only. None: unconditional.
    shuffle_condition: Optional[str] = None
    # A hand-built queue dequeued one record at a time (`queue.dequeue()`) that no batching
    # follows: the dataset gives records as the dequeue did, with no batch stage (`batch_size` "1"
    # is unused).
    single: bool = False
    # The source of the batching's `name=`: the iterator's get_next() takes it, so the batch's
    # tensors keep the names `name:0`, `name:1`... that code may fetch them by.
    name: Optional[str] = None


@dataclass(frozen=True)
class Sharding:
    """One shard per tower: `num_shards` towers, this pipeline feeds tower `index`.

    split_buffer: the towers took their batches from one shuffle queue (a prefetch queue behind
    one shuffle_batch), so each shard shuffles with its share of that queue's buffer.
    """

    num_shards: str
    index: str
    split_buffer: bool = False


@dataclass(frozen=True)
class ZipPart:
    """One chain of a ZipSource: its producer, its reader (None for a row or slice source), the
    name of its own dataset."""

    source: Union[FileSource, SliceSource]
    reader: Optional["RecordReader"]
    dataset_name: str


@dataclass(frozen=True)
class ZipSource:
    """Several producer → reader chains whose records are combined one from each per element
    (`batch([f(record_a, record_b)])`): `Dataset.zip` of the chains' datasets, each shuffled,
    repeated and seeded as its producer was; the zip ends with the first chain that ends. The
    map function takes one record of each part, in the parts' order. Epochs are each part's own,
    so nothing after the zip repeats."""

    parts: Tuple[ZipPart, ...]
    num_epochs: Optional[str] = None  # repeated per part, before the zip
    shuffle: bool = False  # the parts shuffle their own files or rows
    seed: Optional[str] = None


@dataclass(frozen=True)
class Pipeline:
    source: Union[FileSource, SliceSource, ZipSource]
    reader: Optional[RecordReader]  # None for a SliceSource or ZipSource: its rows (its parts' records) are the records
    record_function: Optional[RecordFunction]  # None when the records are batched as read
    batching: Batching
    dataset_name: str = "dataset"
    file_name_param: str = "filename"
    prefetch: str = "1"
    sharding: Optional[Sharding] = None
    # Towers share one iterator, kept in the dict parameter `shared_iterators` under this key.
    shared_iterator_key: Optional[str] = None
    iterator_name: str = "iterator"
    # The number of tensors in each element when it is a tuple of them (1: one tensor), known
    # to be dense; None otherwise (a dict, a computed tuple, possibly sparse).
    dense_arity: Optional[int] = None
    # No batching follows the read: one-shot get_next() gives one record (read_up_to: one chunk) where
    # reader.read gave it; `batching` and `record_function` are unused. keyed: elements are
    # (file name, contents), the whole-file reader's key and value.
    unbatched: bool = False
    keyed: bool = False
    # A reader helper chosen at run time (`if c: read = read_a` / `elif d: read = read_b`): the
    # variable's name and, per helper it may hold, the reader that helper makes. `reader` is the first.
    reader_choice: Optional[Tuple[str, Tuple[Tuple[str, RecordReader], ...]]] = None
    # Some path of the code batches nothing (`if a: batch(...)` / `elif b: batch(...)`, no `else`):
    # enqueue_many's unbatch goes into each batching tail, not ahead of them (that path takes
    # the map's elements as they are).
    unbatch_in_tail: bool = False
    # The function also returns the per-record element under this name (every caller discards
    # it): bound to one record of its own iterator over the stages up to the map (returned_records).
    returned_record: Optional[str] = None
    # A `*_join`'s n threads each ran their own copy of the per-record code, told apart by the
    # loop's variable (`for thread_id in range(n)`): (n, the variable, the function choosing a
    # record's copy). The map function takes the variable last; record i goes through copy i % n.
    thread_copies: Optional[Tuple[str, str, str]] = None
    # A slice producer's shuffle of the rows repeats them too (shuffle_and_repeat at the source,
    # synth.rows_repeatable): set where the whole dataset is written at once, head and tail.
    rows_repeat: bool = False
