"""slim's readers: `DatasetDataProvider` and `parallel_reader.parallel_read` / `single_pass_read`.

Each is a file-name producer and a reader in one call (TF 1.8's `dataset_data_provider.py` and
`parallel_reader.py`): `get_data_files(data_sources)`, then `string_input_producer(files,
num_epochs, shuffle, seed)`, then `num_readers` readers filling a common queue, a
RandomShuffleQueue(capacity, min_after_dequeue, seed) when shuffling, else a FIFOQueue.
"""
from typing import Optional, Tuple

import libcst as cst

from qmigrate.diagnostics import Safety
from qmigrate.model import FileSource, RecordReader
from qmigrate.rules.base import (
    Example, Rule, SourceOf, Unsupported, condition_base, example_source, is_none, is_plain, literal_bool, whole)

PROVIDER = "tensorflow.contrib.slim.dataset_data_provider.DatasetDataProvider"
PARALLEL_READ = "tensorflow.contrib.slim.parallel_reader.parallel_read"
SINGLE_PASS_READ = "tensorflow.contrib.slim.parallel_reader.single_pass_read"
TFRECORD_READER = "tensorflow.TFRecordReader"


def _optional(args, name: str, source: SourceOf) -> Optional[str]:
    node = args.get(name)
    return None if is_none(node) else source(node)


def _shuffle(args, source: SourceOf):
    """slim's `shuffle=`: True/False, or the source of a condition on names and literals
    (`split_name == 'train'`), or an attribute of a name (`config.shuffle`), which the rewrite
    tests with a Python `if`, as slim did. The recogniser proves those names are not rebound, and
    that nothing can store into the attribute's object, before the new test; a call or a
    subscript could change unseen, so it is refused."""
    node = args.get("shuffle")
    if node is None or (isinstance(node, cst.Name) and node.value in ("True", "False")):
        return literal_bool(node, True, "shuffle")
    if condition_base(node) is not None:  # `config.shuffle`: the recogniser proves nothing changes it first
        return source(node)
    if not is_plain(node):
        raise Unsupported("`shuffle=` is computed with a call or subscript, which could change "
                          "before the rewritten test; bind it to a name first")
    return source(node.with_changes(lpar=[], rpar=[]) if hasattr(node, "lpar") else node)


def _default_dtypes(node: cst.BaseExpression, resolve) -> bool:
    """`[tf.string, tf.string]`: the common queue's dtypes parallel_read uses when given none (the
    key and the value it reads)."""
    return (isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == 2
            and all(isinstance(e, cst.Element) and resolve(e.value) == "tensorflow.string" for e in node.elements))


def _buffer(args, name: str, default: str, source: SourceOf) -> str:
    """The common queue's min_after_dequeue as a shuffle buffer (a whole number, see base.whole)."""
    node = args.get(name)
    if is_none(node):
        return default
    return whole(node, source)


_OPTIONS = ("tensorflow.python_io.TFRecordOptions", "tensorflow.io.TFRecordOptions")
_COMPRESSION = {"%s.%s" % (module, kind): value
                for module in ("tensorflow.python_io.TFRecordCompressionType", "tensorflow.io.TFRecordCompressionType")
                for kind, value in (("ZLIB", "ZLIB"), ("GZIP", "GZIP"), ("NONE", ""))}


def reader_arguments(args, resolve) -> Tuple[Tuple[str, str], ...]:
    """The TFRecordDataset arguments standing for `reader_kwargs=`, the keyword arguments slim gives
    each tf.TFRecordReader. TF 1.8's TFRecordReader(name=None, options=None) reads files compressed
    as `options` (a TFRecordOptions(compression_type)) says, and TFRecordDataset(filenames,
    compression_type=None, buffer_size=None) takes that compression type as a string ("ZLIB",
    "GZIP", "" for none). `name` only names the reader op: nothing read depends on it. Anything
    else is refused with the reason (Unsupported)."""
    node = args.get("reader_kwargs")
    if is_none(node):
        return ()
    if not isinstance(node, cst.Dict):
        raise Unsupported("its `reader_kwargs=` is not a literal dict (nor a name bound once, to one, in the "
                          "function and read only there), so what it passes to tf.TFRecordReader cannot be seen")
    out = []
    for element in node.elements:
        if not (isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)):
            raise Unsupported("its `reader_kwargs=` has a key that is not a literal string, or ** unpacking")
        key = element.key.evaluated_value
        if key == "name":
            continue
        if key != "options":
            raise Unsupported("its `reader_kwargs=` passes `%s`, which tf.TFRecordReader does not take (it takes "
                              "`name` and `options`)" % key)
        compression = _compression(element.value, resolve)
        if compression:
            out.append(("compression_type", repr(compression)))
    return tuple(out)


def _compression(options, resolve) -> str:
    """"ZLIB", "GZIP" or "" for `TFRecordOptions(TFRecordCompressionType.X)` (or None)."""
    if is_none(options):
        return ""
    if isinstance(options, cst.Call) and resolve(options.func) in _OPTIONS and len(options.args) == 1:
        arg = options.args[0]
        if not arg.star and (arg.keyword is None or arg.keyword.value == "compression_type"):
            compression = _COMPRESSION.get(resolve(arg.value))
            if compression is not None:
                return compression
    raise Unsupported("its `reader_kwargs=` gives `options=` other than tf.python_io.TFRecordOptions("
                      "tf.python_io.TFRecordCompressionType.ZLIB, GZIP or NONE), the one option TFRecordDataset "
                      "has a counterpart for (compression_type)")


def _tfrecord_class(args, resolve) -> None:
    """parallel_read's reader class must be tf.TFRecordReader, named in the call."""
    reader = args.get("reader_class")
    name = resolve(reader) if reader is not None else None
    if name != TFRECORD_READER:
        raise Unsupported("its reader class is %s, not tf.TFRecordReader, the only reader whose records "
                          "qmigrate reads with a tf.data dataset here" % (
                              "`%s`" % cst.Module([]).code_for_node(reader) if reader is not None else "missing"))


class DatasetDataProvider(Rule):
    """slim's `DatasetDataProvider(dataset, ...)` + `provider.get(items)` becomes a TFRecordDataset
    over `dataset.data_sources` whose map decodes with `dataset.decoder`.

    ## Why
    The provider builds a file-name queue, `num_readers` readers and a common queue (shuffling
    when `shuffle=True`), all run by queue-runner threads, then decodes every record with the
    dataset's decoder. tf.data reads the same files and calls the same decoder in its map.

    ## Fix safety
    Safe when the slim Dataset is built where qmigrate sees it (in the function, returned by a
    function of the module, or by a function of a module it imports and qmigrate finds beside it
    or in its package: `module.get_split(...)`, `from module import get_split`, or
    `TABLE[name].get_split(...)` with TABLE a module-level dict of imported modules that the
    module only looks up) with `reader=tf.TFRecordReader` (named there, or a parameter the calls
    followed pass `tf.TFRecordReader` to, or leave None for a top-level `if reader is None:
    reader = tf.TFRecordReader` to fill in, slim's dataset modules' way) and a `TFExampleDecoder`
    whose item handlers are slim's own `Tensor`, `Image` or `BoundingBox`, or classes of the program's own
    derived from `ItemHandler` alone whose methods build only graph ops on the tensors they are
    given (no variables, tables, queues, collections, summaries or `py_func`, no ops built in
    `__init__`, no attributes stored outside it, no code qmigrate cannot read): the decoder runs
    once either way, when the graph is built, in the map function's graph instead of the main
    one. A provider whose records no queue of its block batches (returned, batched by a caller,
    or used one a run where they are read, in a module that batches nothing) is read through the
    dataset's one-shot iterator: `get()` decodes the record `get_next()` gives
    where it decoded the dequeued one, so any decoder does. The files are listed by slim's
    `get_data_files` as before; with `shuffle=True` (the default) the file order is shuffled every
    epoch and the records are mixed in a buffer of `common_queue_min` (the common queue's
    `min_after_dequeue`) that spans epoch ends, seeded with `seed`; `num_readers` files are read at
    once (`interleave`); `num_epochs` repeats. The random orders differ from the queues'.
    `reader_kwargs={'options': tf.python_io.TFRecordOptions(TFRecordCompressionType.ZLIB)}` (a
    literal dict, or a local name bound once to one and read only there) reads compressed files:
    TFRecordDataset's `compression_type='ZLIB'` (GZIP likewise); a `name` only named the reader op.
    A method that returns the provider (a provider factory: `make_data_provider(self, **kwargs)`)
    is migrated with each caller in another module that makes the object from its class, calls
    the method with no argument and reads and batches as above: the class gets a sibling,
    `make_data_provider_records()`, giving the records read as the provider read them and the
    slim Dataset, whose decoder the caller's map function calls; the method stays, for callers
    that keep the provider.

    ## Limitations
    Not rewritten: a dataset whose reader class or decoder is not visible (a parameter of the
    function that reads the provider, a value of a caller's own, a module not found, an
    attribute), another reader class, lookup item handlers or handler classes
    qmigrate cannot prove, a dataset whose `reader` or `decoder` is replaced after it is made,
    per-record code that rebinds a name bound before it outside (the map function's local), other
    `reader_kwargs` (computed options, a parameter), a computed `shuffle=`, `get()` of the record
    key, a provider used beyond one `get()`; a provider factory that is a function, takes
    arguments, or is called on an object whose class is not seen where it is read (a parameter).
    """

    code = "QM106"
    names = (PROVIDER,)
    signature = ("dataset", "num_readers", "reader_kwargs", "shuffle", "num_epochs", "common_queue_capacity",
                 "common_queue_min", "record_key", "seed", "scope")
    message = "slim DatasetDataProvider reads through parallel readers and a common queue"
    advice = ("read dataset.data_sources with tf.data.TFRecordDataset (interleave for num_readers), decode each "
              "record with dataset.map(lambda r: dataset.decoder.decode(r, items)), then batch")
    @classmethod
    def reason_for(cls, name):
        return ("the provider is not assigned to a name and read by `get()` in the block that batches its records "
                "(here it is returned, passed on or built in an expression)")

    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib import slim


            def inputs(pattern, batch_size):
                decoder = slim.tfexample_decoder.TFExampleDecoder(
                    {'x': tf.FixedLenFeature([4], tf.float32), 'y': tf.FixedLenFeature([], tf.int64)},
                    {'x': slim.tfexample_decoder.Tensor('x'), 'y': slim.tfexample_decoder.Tensor('y')})
                dataset = slim.dataset.Dataset(pattern, tf.TFRecordReader, decoder, 1000, {})
                provider = slim.dataset_data_provider.DatasetDataProvider(dataset, num_readers=2, common_queue_min=64)
                x, y = provider.get(['x', 'y'])
                return tf.train.batch([x * 2.0, y], batch_size=batch_size)
            """),
            after=example_source("""
            import tensorflow as tf
            from tensorflow.contrib import slim


            def inputs(pattern, batch_size):
                decoder = slim.tfexample_decoder.TFExampleDecoder(
                    {'x': tf.FixedLenFeature([4], tf.float32), 'y': tf.FixedLenFeature([], tf.int64)},
                    {'x': slim.tfexample_decoder.Tensor('x'), 'y': slim.tfexample_decoder.Tensor('y')})
                def parse_record(serialized):
                    x, y = decoder.decode(serialized, ['x', 'y'])
                    return x * 2.0, y

                data_files = tf.contrib.slim.parallel_reader.get_data_files(pattern)
                dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
                dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
                dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
                dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(64))
                dataset_2 = dataset_2.map(parse_record)
                dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset_2 = dataset_2.prefetch(1)
                return list(dataset_2.make_one_shot_iterator().get_next())
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib import slim


            def inputs(dataset, batch_size):
                provider = slim.dataset_data_provider.DatasetDataProvider(dataset)
                image, label = provider.get(['image', 'label'])
                return tf.train.batch([image, label], batch_size=batch_size)
            """),
        ),
    )

    @classmethod
    def model(cls, args, source: SourceOf, resolve) -> FileSource:
        """The provider's file source; `files` is left empty for the recogniser to name."""
        dataset = args.get("dataset")
        if dataset is None:
            raise Unsupported("it has no dataset argument")
        return FileSource(files="", data_sources="%s.data_sources" % source(dataset),
                          num_epochs=_optional(args, "num_epochs", source),
                          shuffle=_shuffle(args, source), seed=_optional(args, "seed", source))

    @classmethod
    def reader_model(cls, args, source: SourceOf, resolve) -> RecordReader:
        readers = _optional(args, "num_readers", source) or "1"
        shuffle = _shuffle(args, source)
        return RecordReader("tfrecord", arguments=reader_arguments(args, resolve),
                            parallel_reads=None if readers == "1" else readers,
                            record_shuffle=_buffer(args, "common_queue_min", "128", source) if shuffle else None)


class ParallelRead(Rule):
    """slim's `key, value = parallel_read(data_sources, tf.TFRecordReader, ...)` becomes a
    TFRecordDataset over the same files, `interleave`d over `num_readers` of them.

    ## Why
    `num_readers` readers fill a common queue from a file-name queue, run by queue-runner threads.

    ## Fix safety
    Safe: the files listed by slim's `get_data_files` as before, shuffled every epoch with
    `shuffle=True` (the default), the records mixed in a buffer of `min_after_dequeue` that spans
    epoch ends (seeded with `seed`); `num_readers` (default 4) files read at once; `num_epochs`
    repeats. The random orders differ from the queues'. `reader_kwargs` giving the readers
    TFRecordOptions of a compression type read compressed files, as for QM106.

    Records returned (or otherwise left) unbatched are read one a run through the dataset's
    one-shot iterator, as the common queue gave them; the code after the read stays where it is.

    ## Limitations
    Only `tf.TFRecordReader` named in the call; `reader_kwargs` only as for QM106; no `dtypes`, a
    literal `shuffle`; a key that the code uses (a TFRecordDataset gives no keys).
    """

    code = "QM107"
    names = (PARALLEL_READ,)
    signature = ("data_sources", "reader_class", "num_epochs", "num_readers", "reader_kwargs", "shuffle", "dtypes",
                 "capacity", "min_after_dequeue", "seed", "scope")
    message = "slim parallel_read reads with several readers into a common queue"

    @classmethod
    def reason_for(cls, name):
        return "its result is not unpacked into `key, value` in the block that batches the records"

    advice = ("read the files with tf.data.TFRecordDataset, interleaved over num_readers files, shuffle and repeat, "
              "then map the per-record code")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib.slim.python.slim.data import parallel_reader


            def numbers(pattern, batch_size):
                _, value = parallel_reader.parallel_read(pattern, tf.TFRecordReader, num_readers=3, min_after_dequeue=100)
                example = tf.parse_single_example(value, {'n': tf.FixedLenFeature([], tf.int64)})
                return tf.train.batch([example['n']], batch_size)
            """),
            after=example_source("""
            import tensorflow as tf


            def numbers(pattern, batch_size):
                def parse_record(value):
                    example = tf.parse_single_example(value, {'n': tf.FixedLenFeature([], tf.int64)})
                    return example['n']

                data_files = tf.contrib.slim.parallel_reader.get_data_files(pattern)
                dataset = tf.data.Dataset.from_tensor_slices(data_files)
                dataset = dataset.shuffle(tf.size(data_files, out_type=tf.int64))
                dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=3)
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(100))
                dataset = dataset.map(parse_record)
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib.slim.python.slim.data import parallel_reader


            def text_lines(pattern, batch_size):
                _, line = parallel_reader.parallel_read(pattern, tf.TextLineReader)
                return tf.train.batch([tf.reshape(line, [])], batch_size)
            """),
        ),
    )

    @classmethod
    def model(cls, args, source: SourceOf, resolve) -> FileSource:
        files = args.get("data_sources")
        if files is None:
            raise Unsupported("it has no data_sources argument")
        if not (is_none(args.get("dtypes")) or _default_dtypes(args["dtypes"], resolve)):
            raise Unsupported("it sets `dtypes=` of the common queue")
        return FileSource(files="", data_sources=source(files), num_epochs=_optional(args, "num_epochs", source),
                          shuffle=_shuffle(args, source), seed=_optional(args, "seed", source))

    @classmethod
    def reader_model(cls, args, source: SourceOf, resolve) -> RecordReader:
        _tfrecord_class(args, resolve)
        readers = _optional(args, "num_readers", source) or "4"
        shuffle = _shuffle(args, source)
        return RecordReader("tfrecord", arguments=reader_arguments(args, resolve),
                            parallel_reads=None if readers == "1" else readers,
                            record_shuffle=_buffer(args, "min_after_dequeue", "128", source) if shuffle else None)


class SinglePassRead(Rule):
    """slim's `key, value = single_pass_read(data_sources, tf.TFRecordReader)` becomes one pass of
    a TFRecordDataset over the same files, in order.

    ## Why
    A file-name queue of one epoch, unshuffled, and one reader, run by a queue-runner thread.

    ## Fix safety
    Safe: the files listed by slim's `get_data_files`, read once, in order.

    ## Limitations
    Only `tf.TFRecordReader` named in the call, `reader_kwargs` only as for QM106; a key that the
    code uses.
    """

    code = "QM108"
    names = (SINGLE_PASS_READ,)
    signature = ("data_sources", "reader_class", "reader_kwargs", "scope")
    message = "slim single_pass_read reads through a file-name queue"
    reason_for = ParallelRead.reason_for

    advice = "read the files once with tf.data.TFRecordDataset and map the per-record code"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib.slim.python.slim.data import parallel_reader


            def once(files, batch_size):
                _, value = parallel_reader.single_pass_read(files, tf.TFRecordReader)
                example = tf.parse_single_example(value, {'n': tf.FixedLenFeature([], tf.int64)})
                return tf.train.batch([example['n']], batch_size, allow_smaller_final_batch=True)
            """),
            after=example_source("""
            import tensorflow as tf


            def once(files, batch_size):
                def parse_record(value):
                    example = tf.parse_single_example(value, {'n': tf.FixedLenFeature([], tf.int64)})
                    return example['n']

                data_files = tf.contrib.slim.parallel_reader.get_data_files(files)
                dataset = tf.data.Dataset.from_tensor_slices(data_files)
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat(1)
                dataset = dataset.batch(batch_size)
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )

    @classmethod
    def model(cls, args, source: SourceOf, resolve) -> FileSource:
        files = args.get("data_sources")
        if files is None:
            raise Unsupported("it has no data_sources argument")
        return FileSource(files="", data_sources=source(files), num_epochs="1", shuffle=False)

    @classmethod
    def reader_model(cls, args, source: SourceOf, resolve) -> RecordReader:
        _tfrecord_class(args, resolve)
        return RecordReader("tfrecord", arguments=reader_arguments(args, resolve))


class ReaderModel:
    """The recogniser's reader slot for a slim call: `model()` is the rule's `reader_model()`."""

    def __init__(self, rule):
        self.rule = rule

    def model(self, args, source: SourceOf, resolve) -> RecordReader:
        return self.rule.reader_model(args, source, resolve)


class UnseenSlimDataset(Rule):
    """A slim provider whose Dataset is made where qmigrate cannot see it (a parameter, another module).

    ## Why
    The provider reads with the dataset's reader class and decodes with its decoder; qmigrate
    writes a TFRecordDataset and calls the same decoder in Dataset.map only when it sees that the
    reader is tf.TFRecordReader and the item handlers are slim's own.

    ## Fix safety
    Unsafe (applied with `--unsafe`): the migrated code checks `dataset.reader is tf.TFRecordReader`
    when it builds the pipeline and raises ValueError otherwise, where the provider read any format.
    The decoder is not checked: slim's `LookupTensor` handler builds a table a one-shot iterator
    cannot capture (the iterator fails when it is made), and item handlers of your own run inside
    Dataset.map, where Python side effects happen once, when the function is traced.

    ## Limitations
    Only for providers whose other arguments and chain qmigrate rewrites (QM106).
    """

    code = "QM109"
    safety = Safety.UNSAFE
    message = "the slim dataset of this provider is made where qmigrate cannot see its reader class and decoder"
    advice = ("`qmigrate --unsafe` migrates it, checking the reader class when the pipeline is built; or make the "
              "slim Dataset in the function that reads it")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib import slim


            def inputs(dataset, batch_size):
                provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
                image, label = provider.get(['image', 'label'])
                return tf.train.batch([image, label], batch_size=batch_size)
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib import slim


            def inputs(dataset, batch_size):
                provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
                image, label = provider.get(['image', 'label'])
                return tf.train.batch([image, label], batch_size=batch_size)
            """),
            after=example_source("""
            import tensorflow as tf


            def inputs(dataset, batch_size):
                def parse_record(serialized):
                    image, label = dataset.decoder.decode(serialized, ['image', 'label'])
                    return image, label

                if dataset.reader is not tf.TFRecordReader:
                    raise ValueError('migrated for slim datasets of TFRecord files; this one reads with %r' % (dataset.reader,))
                data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
                dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
                dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
                dataset_2 = dataset_2.map(parse_record)
                dataset_2 = dataset_2.repeat()
                dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset_2 = dataset_2.prefetch(1)
                return list(dataset_2.make_one_shot_iterator().get_next())
            """),
            unsafe=True,
        ),
    )


class SlimReaderClassKept(Rule):
    """A reader class that stays as a slim Dataset's `reader=` argument after its providers migrate.

    ## Why
    slim's `Dataset` takes a reader class, and a `DatasetDataProvider` reads the dataset's files
    through it and through queues. Once every provider in the module reads the files with a
    tf.data dataset instead, nothing reads through the class any more. Where the function that
    made the Dataset reads nothing else of it, the Dataset goes with its provider
    (qmigrate/dead_datasets.py). Where other code reads it (its `num_samples`, or the Dataset is
    returned), it stays, and the Dataset still asks for a reader class: this note says why a queue
    reader's name is left in the file.

    ## Fix safety
    A note: nothing to change while the Dataset is only read by migrated code. A provider of
    this dataset elsewhere (another module, outside the run) still reads through it.

    The same holds for a reader class that a module with queue code of its own hands over in a
    function that no code of the run calls (no other file names it, its own module only defines
    it: qmigrate/uncalled_datasets.py): no program of the run reads through the class, so it
    keeps no queue runner of theirs.

    A module of Dataset definitions alone (slim's `datasets/cifar10.py`: `get_split()` makes the
    Dataset, providers elsewhere read it) gets the note too: its class stays for the Dataset,
    and each provider is reported, and migrated where qmigrate can, where it is.

    ## Limitations
    Only in modules whose slim providers and parallel reads all migrated, in modules without
    queue code of their own, or in functions no code of the run names; `reader=` given a
    TensorFlow reader class by name, or a name its function binds to one (an assignment, the
    parameter's default). A function called by a name built at run time
    (`getattr(module, "get_" + name)`) is not seen.
    """

    code = "QM110"
    safety = Safety.MANUAL
    note = True
    message = "the reader class stays as the slim Dataset's `reader=` argument, which slim's Dataset requires"
    advice = ("nothing to change here: slim reads the files through the class only where a "
              "DatasetDataProvider reads the Dataset, and qmigrate reports each provider of the run where it "
              "is; a provider outside the run would still read through it")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib import slim


            def inputs(files, batch_size):
                decoder = slim.tfexample_decoder.TFExampleDecoder(
                    {'label': tf.FixedLenFeature([], tf.int64)}, {'label': slim.tfexample_decoder.Tensor('label')})
                dataset = slim.dataset.Dataset(data_sources=files, reader=tf.TFRecordReader, decoder=decoder,
                                               num_samples=100, items_to_descriptions={})
                tf.logging.info('reading %d examples', dataset.num_samples)
                provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False, num_epochs=1)
                label, = provider.get(['label'])
                return tf.train.batch([label], batch_size=batch_size)
            """),
            after=example_source("""
            import tensorflow as tf
            from tensorflow.contrib import slim


            def inputs(files, batch_size):
                decoder = slim.tfexample_decoder.TFExampleDecoder(
                    {'label': tf.FixedLenFeature([], tf.int64)}, {'label': slim.tfexample_decoder.Tensor('label')})
                dataset = slim.dataset.Dataset(data_sources=files, reader=tf.TFRecordReader, decoder=decoder,
                                               num_samples=100, items_to_descriptions={})
                tf.logging.info('reading %d examples', dataset.num_samples)
                def parse_record(serialized):
                    label, = dataset.decoder.decode(serialized, ['label'])
                    return label

                data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
                dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
                dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
                dataset_2 = dataset_2.map(parse_record)
                dataset_2 = dataset_2.repeat(1)
                dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset_2 = dataset_2.prefetch(1)
                return dataset_2.make_one_shot_iterator().get_next()
            """),
        ),
    )
