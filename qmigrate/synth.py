"""Write tf.data source for a pipeline model, for one target TensorFlow version.

Everything returned is source text; the engine parses and places it. One statement per stage
(`dataset = dataset.map(...)`), the idiom of the tf.data guides of that era, so each stage is one
line and the user's indentation never has to be guessed for continuation lines.
"""
import ast
import dataclasses
from typing import List, Optional, Sequence, Tuple, Union

from qmigrate import bucketing
from qmigrate.model import Batching, Pipeline, SliceSource, ZipSource
from qmigrate.targets import Target

# Records per shard block. Measured on the CIFAR-10 tutorial's input (4 shards, TF 1.8):
# record-by-record sharding 10.1k examples/s, blocks of 64 16.8k, the queue version 13.5k.
SHARD_BLOCK = 64
SHARED_ITERATORS = "shared_iterators"

_READER_DATASETS = {
    "tfrecord": "TFRecordDataset",
    "fixed_length": "FixedLengthRecordDataset",
    "text_line": "TextLineDataset",
}


def _call_args(*parts: str) -> str:
    return ", ".join(p for p in parts if p)


_DATA_FILES = "tensorflow.contrib.slim.parallel_reader.get_data_files"


def cannot_write(pipeline: Pipeline, target: Target) -> Optional[str]:
    """Why the pipeline cannot be written for `target`, or None."""
    source = pipeline.source
    if getattr(source, "data_sources", None) is not None and not target.symbols.has(_DATA_FILES):
        return ("slim lists its data sources with get_data_files, which TensorFlow %s does not have (slim went with "
                "tf.contrib)" % target.version)
    return None


def dataset_statements(pipeline: Pipeline, tf: str, target: Target) -> List[str]:
    """The statements that build the pipeline's dataset into `pipeline.dataset_name`."""
    return head_statements(pipeline, tf, target) + tail_statements(pipeline, tf, target)


def head_statements(pipeline: Pipeline, tf: str, target: Target) -> List[str]:
    """The stages up to the per-record work: source, file shuffle, read (and a group read's
    repeat and groups), shard, map."""
    ds = pipeline.dataset_name
    source, reader, batching = pipeline.source, pipeline.reader, pipeline.batching
    if isinstance(source, ZipSource):
        out = _zipped_parts(pipeline, tf, target)
        size = None
    elif isinstance(source, SliceSource):
        # A tuple of several tensors: the map function takes one argument per tensor. One tensor
        # alone, not a 1-tuple: `batch([row])` gave the tensor itself, and a map function of one
        # parameter takes it as it is.
        tensors = "(%s)" % ", ".join(source.tensors) if len(source.tensors) > 1 else source.tensors[0]
        out = ["%s = %s.data.Dataset.from_tensor_slices(%s)" % (ds, tf, tensors)]
        size = "%s.shape(%s, out_type=%s.int64)[0]" % (tf, source.tensors[0], tf)
    elif source.held:  # the file names' dataset the object holds, shuffled and repeated already
        out = ["%s = %s" % (ds, source.files)]
        size = None
    else:
        files = source.files
        if source.pattern is not None:
            files = "%s.%s(%s)" % (tf, target.matching_files, source.pattern)
        out = []
        if source.reader_check:
            # The slim dataset was not seen: its records are read as TFRecords only if it says so.
            out.append("if %s.reader is not %s.TFRecordReader:\n    raise ValueError('migrated for slim datasets of "
                       "TFRecord files; this one reads with %%r' %% (%s.reader,))"
                       % (source.reader_check, tf, source.reader_check))
        if source.data_sources is not None:
            # slim listed its data sources in Python, globbing patterns, before its producer.
            out.append("%s = %s.contrib.slim.parallel_reader.get_data_files(%s)" % (files, tf, source.data_sources))
        if source.listed_by is not None:  # the function before the dataset: a blank line between
            out.append("\n%s = %s.data.Dataset.from_tensors(%s).flat_map(%s)" % (ds, tf, files, source.listed_by))
        else:
            out.append("%s = %s.data.Dataset.from_tensor_slices(%s)" % (ds, tf, files))
        size = "%s.size(%s, out_type=%s.int64)" % (tf, files, tf)

    def stage(text: str) -> None:
        out.append("%s = %s.%s" % (ds, ds, text))

    if pipeline.rows_repeat:
        # A new order of the rows every epoch, as the producer's, drawn while the last epoch drains:
        # `shuffle(rows).repeat()` would read every row into its buffer again before the first
        # batch of each epoch (a pause at every epoch boundary, measured: 284 ms against 11 ms for
        # 50,000 CIFAR-sized rows under TF 1.8).
        # (under the producer's own Python test of its `shuffle` argument, made here, if it has one)
        out.extend(_shuffled_and_repeated(ds, source.shuffle, size, source.num_epochs, source.seed, tf, target))
    elif source.shuffle and not getattr(source, "held", False):
        # Like the producers: a new order every epoch (shuffle over all of it, before repeat).
        seed = "seed=%s" % source.seed if source.seed else ""
        if source.shuffle is True:
            stage("shuffle(%s)" % _call_args(size, seed))
        else:  # the producer's own Python test of its `shuffle` argument, made here
            out.append("if %s:\n    %s = %s.shuffle(%s)" % (source.shuffle, ds, ds, _call_args(size, seed)))

    if pipeline.reader_choice is not None:
        out.append(_chosen_reader(pipeline, tf, target))
    elif reader is not None:
        if reader.keyed_records:  # a function among the stages: blank lines around it
            out.append("\n" + keyed_records(reader, tf, target))
        _read_records(pipeline, tf, target, stage)
        if reader.keyed_records:
            out[-1] = "\n" + out[-1]
        if reader.read_groups:
            out.extend(_read_groups(pipeline, tf, target))

    if pipeline.sharding:
        # Shard records before the per-record work so no tower repeats it; in blocks, because
        # every shard reads every record, and skipping them one at a time costs more than the read.
        out.append("# Each tower's shard: blocks of %d records, before the per-record work.\n"
                   "%s = %s.batch(%d)" % (SHARD_BLOCK, ds, ds, SHARD_BLOCK))
        stage("shard(%s, %s)" % (pipeline.sharding.num_shards, pipeline.sharding.index))
        stage(_unbatch(tf, target))

    if reader is not None and reader.record_shuffle:
        # slim's common RandomShuffleQueue mixed the records of all readers before decoding, and
        # kept filling across epoch ends: shuffle and repeat here, before the map. With a computed
        # `shuffle=`, slim made a FIFOQueue when it was false: then only the repeat. A hand-built
        # shuffling queue of the records as read: the same, under its own test, with its own seed.
        buffer, comment = reader.record_shuffle, ""
        own = reader.record_shuffle_test is not None
        test, seed = (reader.record_shuffle_test, reader.record_shuffle_seed) if own else (source.shuffle, source.seed)
        if pipeline.sharding and pipeline.sharding.split_buffer:
            comment = "# The towers shared one common queue: each shard keeps its share.\n"
            buffer = "max(%s // %s, 1)" % (_operand(buffer), _operand(pipeline.sharding.num_shards))
        out.extend(_shuffled_and_repeated(ds, test, buffer, source.num_epochs, seed, tf, target, comment))

    function = pipeline.record_function
    if function is not None and pipeline.thread_copies is not None:
        out.extend(_thread_copies(pipeline, tf))
        function = dataclasses.replace(function, name=pipeline.thread_copies[2])
    if function is not None:
        threads = "num_parallel_calls=%s" % _threads(pipeline) if batching.num_threads else ""
        stage("map(%s)" % _call_args(function.name, threads))
        if pipeline.thread_copies is not None:  # after the function: a blank line
            out[-1] = "\n" + out[-1]
        if threads and _shares_threads(pipeline):
            out[-1] = "# The towers shared the queue's threads: each shard runs its share.\n" + out[-1]
    if batching.enqueue_many and not pipeline.unbatch_in_tail:
        # Each input was a batch of examples (enqueue_many=True): examples are batched anew.
        stage(_unbatch(tf, target))
    if batching.keep_input:
        # maybe_batch enqueued only the records whose keep_input held.
        stage("filter(lambda element, keep: keep)")
        stage("map(lambda element, keep: element)")
    if pipeline.returned_record is not None:
        # The function returned the records too: a value of the same structure, which every
        # caller of the migrated files discarded (returned_records).
        out.append("# Returned as before, one record at a time; the callers take only the batches.\n"
                   "%s = %s.get_next()" % (pipeline.returned_record, _one_shot(ds, tf, target)))
    return out


def _thread_copies(pipeline: Pipeline, tf: str) -> List[str]:
    """Each record paired with the number of the join thread's copy it goes through, in turn, and
    the function that runs that copy (tf.case over the copies; only the chosen one runs): the
    join's threads each ran their own copy on the records they took, in an order no one chose,
    so every copy took about one record in n; here copy i % n takes record i."""
    ds, function = pipeline.dataset_name, pipeline.record_function
    count, variable, chooser = pipeline.thread_copies
    params = function.params[:-1]
    taken = params + (variable,)  # the chooser's name for the copy number must differ from them
    index = next(name for name in ("copy", "copy_index", "copy_number") + tuple(
        "copy_%d" % number for number in range(2, len(taken) + 3)) if name not in taken)
    # After `*queue` (a slice producer's tensors) the copy's number is a keyword-only parameter.
    given = "%s=%s" % (variable, variable) if any(param.startswith("*") for param in params) else variable
    call = "%s(%s)" % (function.name, ", ".join(params + (given,)))
    return [
        "%s = %s.data.Dataset.zip((%s.data.Dataset.range(%s).repeat(), %s))" % (ds, tf, tf, count, ds),
        "\ndef {chooser}({args}):\n"
        "    # Each of the join's threads ran its own copy of the per-record code (`{variable}` told them\n"
        "    # apart) on the records it took: record i goes through copy i % {count}.\n"
        "    return {tf}.case([({tf}.equal({index}, {variable}),\n"
        "                      lambda {variable}={variable}: {call})\n"
        "                     for {variable} in range({count})])".format(
            chooser=chooser, args=", ".join((index,) + params), count=_operand(count), variable=variable,
            tf=tf, index=index, call=call),
    ]


def _threads(pipeline: Pipeline) -> str:
    """The map's parallel calls: the batcher's threads; a shard's share of them when the towers
    shared one queue, whose threads did the per-record work of every tower (a shard with all of
    them would run the towers' threads times the queue's at once, and fight the model for the CPU)."""
    threads = pipeline.batching.num_threads
    if _shares_threads(pipeline):
        return "max(%s // %s, 1)" % (_operand(threads), _operand(pipeline.sharding.num_shards))
    return threads


def _shares_threads(pipeline: Pipeline) -> bool:
    """Whether each shard's map takes its share of the queue's threads: the towers shared one
    queue, whose thread count is not the literal 1 (a share of one thread is that thread)."""
    return bool(pipeline.sharding and pipeline.sharding.split_buffer) and pipeline.batching.num_threads.strip() != "1"


def _zipped_parts(pipeline: Pipeline, tf: str, target: Target) -> List[str]:
    """Each part's dataset (its own file or row shuffle, read and epochs), then their zip: one
    record of each per element, as each run of the queue's enqueue op read one of each."""
    out, names = [], []
    for part in pipeline.source.parts:
        alone = Pipeline(source=part.source, reader=part.reader, record_function=None, batching=Batching("1"),
                         dataset_name=part.dataset_name)
        out += head_statements(alone, tf, target)
        out.append("%s = %s.repeat(%s)" % (part.dataset_name, part.dataset_name, part.source.num_epochs or ""))
        names.append(part.dataset_name)
    out.append("# One record of each chain per element, in order (a batching queue with several threads could\n"
               "# pair records of different runs); the zip ends with the first chain that ends.\n"
               "%s = %s.data.Dataset.zip((%s))" % (pipeline.dataset_name, tf, ", ".join(names)))
    return out


def tail_statements(pipeline: Pipeline, tf: str, target: Target) -> List[str]:
    """The stages after the per-record work: shuffle buffer, repeat, batch, prefetch (and the
    shared iterator). Branches that batch one dataset differently each get their own tail."""
    ds, source, batching = pipeline.dataset_name, pipeline.source, pipeline.batching
    out = []

    def stage(text: str) -> None:
        out.append("%s = %s.%s" % (ds, ds, text))

    if batching.enqueue_many and pipeline.unbatch_in_tail:
        stage(_unbatch(tf, target))  # as in head_statements, for this path only
    if _repeated(pipeline):
        # Already repeated: each chain of a zip its own epochs before the zip, slim's record
        # shuffle before the map, a held file-name dataset where it was built. A shuffle_batch
        # only shuffles here (not rows shuffled every epoch at the source, rows_repeatable).
        if batching.shuffle_buffer and not pipeline.rows_repeat:
            seed = "seed=%s" % batching.seed if batching.seed else ""
            shuffle = "%s = %s.shuffle(%s)" % (ds, ds, _call_args(batching.shuffle_buffer, seed))
            out.append(_when(batching.shuffle_condition, [shuffle]))
    elif batching.shuffle_buffer:
        buffer, comment = batching.shuffle_buffer, ""
        if pipeline.sharding and pipeline.sharding.split_buffer:
            # The towers shared one shuffle queue: each shard keeps its share of the buffer, so
            # memory, the first fill and the span of records mixed stay those of the queue.
            comment = "# The towers shared one shuffle buffer: each shard keeps its share.\n"
            buffer = "max(%s // %s, 1)" % (_operand(buffer), _operand(pipeline.sharding.num_shards))
        # (a queue helper's shuffling queue made only when its caller's test held: tested again here)
        out.extend(_shuffled_and_repeated(ds, batching.shuffle_condition or True, buffer, source.num_epochs,
                                          batching.seed, tf, target, comment))
    else:
        stage("repeat(%s)" % (source.num_epochs or ""))

    if batching.bucket_boundaries is not None:
        # One batch per bucket of lengths, each batched as the pipeline batches (bucketing.py).
        stage(bucketing.bucket_stage(batching, tf, target, lambda window: _either_batch(
            window, batching, lambda chosen: _batch(
                window, chosen, tf, target, shapes=bucketing.window_shapes(window, tf, target)))))
    elif isinstance(batching.allow_smaller_final_batch, str):
        # allow_smaller_final_batch given by a test: the same test, where the batch was made.
        keep, drop = (_batch(ds, dataclasses.replace(batching, allow_smaller_final_batch=flag), tf, target,
                             pipeline.dense_arity) for flag in (True, False))
        out.append(_when(batching.allow_smaller_final_batch, ["%s = %s.%s" % (ds, ds, keep)],
                         ["%s = %s.%s" % (ds, ds, drop)]))
    elif not batching.single:  # a single-record dequeue gives the records as they are
        stage(_batch(ds, batching, tf, target, pipeline.dense_arity))
    stage("prefetch(%s)" % pipeline.prefetch)
    if pipeline.shared_iterator_key:
        # Every tower that passes the same dict gets its batches from one iterator, as from a queue.
        out.append("if %s is None:\n    %s = {}" % (SHARED_ITERATORS, SHARED_ITERATORS))
        out.append("%s = %s.setdefault(%r, %s)" % (
            pipeline.iterator_name, SHARED_ITERATORS, pipeline.shared_iterator_key, _one_shot(ds, tf, target)))
    return out


def unbatched_statements(pipeline: Pipeline, tf: str, target: Target, assigned: str) -> List[str]:
    """An unbatched read, `assigned = reader.read(queue)`, as a dataset and its next element.

    The reader gave one record (read_up_to: one chunk of a file) each time the read ran, in the
    step that ran it; get_next() does the same, reading when asked (no prefetch: the read never ran
    ahead either). The producer's epochs repeat the files after the read, as tail_statements does
    for a tf.train.batch; slim's record shuffle has repeated them already (head_statements).
    """
    # slim's record shuffle (shuffle_and_repeat in head_statements) has repeated them already.
    repeat = [] if _repeated(pipeline) and not isinstance(pipeline.source, ZipSource) else [repeat_statement(pipeline)]
    return head_statements(pipeline, tf, target) + repeat + [
        "%s = %s" % (assigned, next_element(pipeline, tf, target))]


def _repeated(pipeline: Pipeline) -> bool:
    """Whether the stages up to the map repeat the records already (see tail_statements)."""
    return isinstance(pipeline.source, ZipSource) or getattr(pipeline.source, "held", False) or (
        pipeline.reader is not None and bool(pipeline.reader.record_shuffle or pipeline.reader.read_groups)
    ) or pipeline.rows_repeat


def rows_repeatable(pipeline: Pipeline) -> bool:
    """Whether a slice producer's shuffle of the rows can repeat them too (shuffle_and_repeat at
    the source, Pipeline.rows_repeat): rows shuffled, no towers' shards (which cut the epochs
    first), no record returned beside the batches, and a batching that shuffles only if the rows
    always are (its buffer then goes: the rows are in a new order every epoch already, and the
    epochs stay whole, as every shuffled dataset of qmigrate keeps them)."""
    source, batching = pipeline.source, pipeline.batching
    return (isinstance(source, SliceSource) and bool(source.shuffle) and pipeline.sharding is None
            and pipeline.returned_record is None and not pipeline.unbatched
            and (source.shuffle is True or not batching.shuffle_buffer))


def _read_groups(pipeline: Pipeline, tf: str, target: Target) -> List[str]:
    """One reader read n times a run of the enqueue op (group_reads.py): the epochs repeat, then
    the records are grouped n at a time and ungrouped, dropping the last group cut short, as the
    run that hit the end of the epochs lost its reads. With no epoch limit no group is cut short."""
    ds, n, epochs = pipeline.dataset_name, pipeline.reader.read_groups, pipeline.source.num_epochs
    repeat = "%s = %s.repeat(%s)" % (ds, ds, epochs or "")
    if not epochs:
        return ["# Groups of `%s` records in a row (one reader's reads a run), across epoch ends; the epochs\n"
                "# never end, so no group is cut short.\n%s" % (n, repeat)]
    return ["# Groups of `%s` records in a row (one reader's reads a run), across epoch ends; the last\n"
            "# group, cut short by the end of the epochs, is lost.\n%s" % (n, repeat),
            "%s = %s.%s" % (ds, ds, _batch(ds, Batching(n), tf, target)),
            "%s = %s.%s" % (ds, ds, _unbatch(tf, target))]


def repeat_statement(pipeline: Pipeline) -> str:
    """The producer's epochs, for a path that takes the records one at a time (no batching):
    get_next() after it reads when asked, as the read did (no prefetch)."""
    return "%s = %s.repeat(%s)" % (pipeline.dataset_name, pipeline.dataset_name, pipeline.source.num_epochs or "")


def _chosen_reader(pipeline: Pipeline, tf: str, target: Target) -> str:
    """The read stage of a reader helper chosen at run time: one arm per helper the variable may
    hold, tested as the call did (the variable is bound only to these helpers, so the last arm is
    the `else`; an unbound variable fails here as it failed at the call)."""
    ds = pipeline.dataset_name
    variable, choices = pipeline.reader_choice
    arms = []
    for position, (helper, reader) in enumerate(choices):
        lines = []
        _read_records(dataclasses.replace(pipeline, reader=reader), tf, target,
                      lambda text: lines.append("    %s = %s.%s" % (ds, ds, text)))
        head = "else:" if position == len(choices) - 1 else "%s %s is %s:" % ("if" if not position else "elif",
                                                                               variable, helper)
        arms.append("\n".join([head] + lines))
    return "\n".join(arms)
def _either_batch(dataset: str, batching, batch) -> str:
    """An expression batching `dataset`: `dataset.<batch(batching)>`, or, when
    allow_smaller_final_batch is a test, both batchings chosen by it (`a if test else b`)."""
    test = batching.allow_smaller_final_batch
    if not isinstance(test, str):
        return "%s.%s" % (dataset, batch(batching))
    keep, drop = (batch(dataclasses.replace(batching, allow_smaller_final_batch=flag)) for flag in (True, False))
    return "(%s.%s if %s else %s.%s)" % (dataset, keep, test, dataset, drop)


def _when(condition: Optional[str], then: List[str], otherwise: Sequence[str] = ()) -> str:
    """`then` (statements' source) under `if condition:`, `otherwise` under its else; `then`
    alone when there is no condition."""
    if not condition:
        return "\n".join(then)
    text = "if %s:\n%s" % (condition, "\n".join("    " + line for line in then))
    if otherwise:
        text += "\nelse:\n%s" % "\n".join("    " + line for line in otherwise)
    return text


def _read_records(pipeline: Pipeline, tf: str, target: Target, stage) -> None:
    """The stage turning file names into the records a reader would have read."""
    reader, param = pipeline.reader, pipeline.file_name_param
    if reader.kind == "whole_file":
        if pipeline.keyed or pipeline.record_function and len(pipeline.record_function.params) == 2:
            stage("map(lambda %s: (%s, %s.%s(%s)))" % (param, param, tf, target.read_file, param))
        else:
            stage("map(%s.%s)" % (tf, target.read_file))
        return
    dataset_class = "%s.data.%s" % (tf, _READER_DATASETS[reader.kind])
    if reader.keyed_records:
        dataset_class, args = reader.keyed_records, ""  # it reads the file with the reader's arguments
    else:
        args = ", ".join("%s=%s" % kv for kv in reader.arguments)
    if reader.records_function:
        records = reader.records_function  # it reads one file as the class's reader read it
    elif not args and not reader.skip_lines and not reader.read_up_to:
        records = dataset_class
    else:
        records = "%s(%s)" % (dataset_class, _call_args(param, args))
        if reader.skip_lines:
            records += ".skip(%s)" % reader.skip_lines
        if reader.read_up_to:
            records += ".batch(%s)" % reader.read_up_to  # read_up_to's chunks never span two files
        records = "lambda %s: %s" % (param, records)
    if reader.parallel_reads:
        # n readers on one file queue read n files at once, their records mixed: interleave.
        stage("interleave(%s, cycle_length=%s)" % (records, reader.parallel_reads))
    else:
        # flat_map reads one file after another, in the (shuffled) file order, as a reader does.
        stage("flat_map(%s)" % records)


def keyed_records(reader, tf: str, target: Target) -> str:
    """A function reading one TFRecord file as (key, record) pairs, the key as TFRecordReader
    made it: the file name, a colon, and the record's byte offset in the (uncompressed) file.
    A record takes its length plus 16 bytes (a length of 8 bytes and two CRCs of 4): measured on
    TF 1.8, plain and GZIP files, the keys are the reader's exactly."""
    args = ", ".join("%s=%s" % kv for kv in reader.arguments)
    name = reader.keyed_records
    return ("def {name}(filename):\n"
            "    # TFRecordReader's key: the file name and the record's byte offset (its length + 16 bytes a record).\n"
            "    records = {tf}.data.TFRecordDataset({args})\n"
            "    return records.apply({tf}.{scan}({tf}.constant(0, {tf}.int64), lambda offset, record: (\n"
            "        offset + {length} + 16,\n"
            "        ({tf}.{join}([filename, {tf}.as_string(offset)], ':'), record))))").format(
        name=name, tf=tf, args=_call_args("filename", args), scan=target.scan, join=target.string_join,
        length=target.byte_length(tf, "record"))


def _shuffled_and_repeated(ds: str, test: Union[bool, str], buffer: str, epochs, seed, tf: str, target: Target,
                           comment: str = "") -> List[str]:
    """_shuffle_and_repeat's stages, under `if test:` with a plain repeat in the else when `test` is
    the source of a test (True: always); `comment` opens the first statement."""
    stages = _shuffle_and_repeat(ds, buffer, epochs, seed, tf, target)
    if test is True:
        return [comment + stages[0]] + stages[1:]
    return [comment + _when(test, stages, ["%s = %s.repeat(%s)" % (ds, ds, epochs or "")])]


def _shuffle_and_repeat(ds: str, buffer: str, epochs, seed, tf: str, target: Target) -> List[str]:
    """Shuffle within a buffer and repeat, without emptying the buffer at epoch ends.

    Every example once per epoch, as with `shuffle(b).repeat()`, but the next epoch is read into
    the buffer while this one drains (the fused transformation; TF 2 fuses the plain stages
    itself), so no epoch starts by waiting for a full buffer, as no RandomShuffleQueue did.
    """
    if target.shuffle_and_repeat is None:
        return ["%s = %s.shuffle(%s)" % (ds, ds, _call_args(buffer, "seed=%s" % seed if seed else "")),
                "%s = %s.repeat(%s)" % (ds, ds, epochs or "")]
    module = "contrib.data" if target.shuffle_and_repeat == "contrib" else "data.experimental"
    args = _call_args(buffer, epochs or "", "seed=%s" % seed if seed else "")
    return ["%s = %s.apply(%s.%s.shuffle_and_repeat(%s))" % (ds, ds, tf, module, args)]


def _operand(source: str) -> str:
    """`source` as an operand of `//`: parenthesised unless a name, attribute or number."""
    return source if all(part.isidentifier() or part.isdigit() for part in source.split(".")) else "(%s)" % source


def _batch(ds: str, batching, tf: str, target: Target, dense_arity=None, shapes=None) -> str:
    """The batching stage. Without allow_smaller_final_batch the remainder is dropped (the queue
    never gave a partial batch), which also keeps the batch dimension static. `shapes`: the
    source of the dataset's shapes for padding, when not the target's usual spelling."""
    size, drop = batching.batch_size, not batching.allow_smaller_final_batch
    if size == "1" and drop and not batching.dynamic_pad and dense_arity:
        # A batch of one is each element with a leading dimension of 1: expand_dims is a view,
        # where batch(1) copies every element (measured on 1.8, 4 MB elements: 640 vs 190-260/s).
        names = ["tensor"] if dense_arity == 1 else ["tensor_%d" % i for i in range(dense_arity)]
        names = [name + "_" if name == tf else name for name in names]
        expanded = ["%s.expand_dims(%s, 0)" % (tf, name) for name in names]
        body = expanded[0] if dense_arity == 1 else "(%s)" % ", ".join(expanded)
        return "map(lambda %s: %s)" % (", ".join(names), body)
    if batching.dynamic_pad:
        # Unknown dimensions are padded to the longest in the batch, with 0 or "", as the
        # PaddingFIFOQueue of dynamic_pad=True did.
        if shapes is not None:
            pass
        elif target.output_shapes == "property":
            shapes = "%s.output_shapes" % ds
        else:
            shapes = "%s.compat.v1.data.get_output_shapes(%s)" % (tf, ds)
        if not drop:
            return "padded_batch(%s, %s)" % (size, shapes)
        if target.drop_remainder_kwarg:
            return "padded_batch(%s, %s, drop_remainder=True)" % (size, shapes)
        return "apply(%s.contrib.data.padded_batch_and_drop_remainder(%s, %s))" % (tf, size, shapes)
    if not drop:
        return "batch(%s)" % size
    if target.drop_remainder_kwarg:
        return "batch(%s, drop_remainder=True)" % size
    return "apply(%s.contrib.data.batch_and_drop_remainder(%s))" % (tf, size)


def _one_shot(dataset: str, tf: str, target: Target) -> str:
    if target.iterator_method:
        return "%s.make_one_shot_iterator()" % dataset
    return "%s.compat.v1.data.make_one_shot_iterator(%s)" % (tf, dataset)


def _unbatch(tf: str, target: Target) -> str:
    if target.unbatch == "method":
        return "unbatch()"
    module = "contrib.data" if target.unbatch == "contrib" else "data.experimental"
    return "apply(%s.%s.unbatch())" % (tf, module)


def shape_checks(name: str, shape: str, tf: str, target: Target) -> List[str]:
    """Lines of the map function that give `name` the shape a queue's `shapes=` declared, checked
    for each record as the queue checked it when it was enqueued (set_shape alone is a static
    promise: a record of another shape went through): `tf.ensure_shape` where the target has it
    (1.12+); else an assert_equal of its shape for a literal, fully known shape, then set_shape
    (a shape given by a name, or with unknown dimensions, is only set). An item (`rows[1]` of the
    map function's `*rows`, a tuple) is only set: it cannot be bound again."""
    if not name.isidentifier():
        return ["%s.set_shape(%s)" % (name, shape)]
    if target.ensure_shape:
        return ["%s = %s.ensure_shape(%s, %s)" % (name, tf, name, shape)]
    lines = []
    if _literal_dims(shape):
        lines += ["with %s.control_dependencies([%s.assert_equal(%s.shape(%s), %s.constant(%s, %s.int32))]):" % (
            tf, tf, tf, name, tf, shape, tf), "    %s = %s.identity(%s)" % (name, tf, name)]
    return lines + ["%s.set_shape(%s)" % (name, shape)]


def _literal_dims(shape: str) -> bool:
    """Whether the shape's source is a list or tuple display of int literals (`[3]`, `(28, 28, 1)`, `[]`)."""
    try:
        value = ast.literal_eval(shape)
    except (ValueError, SyntaxError):
        return False
    return isinstance(value, (list, tuple)) and all(isinstance(d, int) and not isinstance(d, bool) for d in value)


def next_element(pipeline: Pipeline, tf: str, target: Target) -> str:
    """Source of an expression giving the dataset's next element (a one-shot iterator), named as
    the batching named its op (`get_next(name=...)`: its outputs `name:0`, `name:1`... as the
    queue's dequeue had), for a TF 1.x target."""
    name = pipeline.batching.name if pipeline.batching is not None else None
    # (TF 2's make_one_shot_iterator gives, eagerly, an iterator whose get_next takes no name)
    call = "get_next(name=%s)" % name if name and target.iterator_method else "get_next()"
    if pipeline.shared_iterator_key:
        return "%s.%s" % (pipeline.iterator_name, call)
    return "%s.%s" % (_one_shot(pipeline.dataset_name, tf, target), call)


def range_statements(limit: str, epochs, shuffle: Union[bool, str], seed, target_expr: str, ds: str,
                     guards: Tuple[str, ...], iterator: Optional[str], taken, tf: str, target: Target) -> List[str]:
    """`target = range_input_producer(limit, ...).dequeue()` as a dataset of the same range.

    The producer gave int32 and tf.data.Dataset.range gives int64: the limit goes in as int64,
    the index comes out as int32 again. `guards` are control inputs (source of a list) that
    guarded the limit: a one-shot iterator captures the limit by value without them, so they
    guard each get_next instead, and fail with their own message before the range is read.
    `taken` (range_producers.Taken): a dequeue_many(n) is a batch of n after the repeat (across
    epochs, as the queue gave them; the last, smaller one dropped as dequeue_many never gave it,
    kept for dequeue_up_to); the dequeue's op name names the cast. `shuffle` is True, False, or
    the source of a plain test, which the producer tested with a Python `if` when the graph was
    built, as the dataset now does.
    """
    size = "%s.cast(%s, %s.int64)" % (tf, limit, tf)
    out = ["%s = %s.data.Dataset.range(%s)" % (ds, tf, size)]
    if shuffle:
        # A new permutation every epoch, as the producer's, the next one drawn while this one drains.
        out.extend(_shuffled_and_repeated(ds, shuffle, size, epochs, seed, tf, target))
    else:
        out.append("%s = %s.repeat(%s)" % (ds, ds, epochs or ""))
    if taken is not None and taken.batch is not None:
        batching = Batching(taken.batch, allow_smaller_final_batch=taken.partial)
        out.append("%s = %s.%s" % (ds, ds, _batch(ds, batching, tf, target)))
    named = ", name=%s" % taken.name if taken is not None and taken.name is not None else ""
    if not guards:
        out.append("%s = %s.cast(%s.get_next(), %s.int32%s)" % (target_expr, tf, _one_shot(ds, tf, target), tf,
                                                               named))
        return out
    out.append("%s = %s" % (iterator, _one_shot(ds, tf, target)))
    guarded = "%s.control_dependencies(%s)" % (tf, " + ".join(guards) if len(guards) > 1 else guards[0])
    out.append("with %s:\n    %s = %s.cast(%s.get_next(), %s.int32%s)" % (guarded, target_expr, tf, iterator, tf,
                                                                           named))
    return out
