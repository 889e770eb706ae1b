"""Batching: `tf.train.batch` and `tf.train.shuffle_batch`, and their `_join` forms."""
import dataclasses
from typing import Optional, Tuple

import libcst as cst

from qmigrate.model import Batching
from qmigrate.rules.base import (
    Example, Rule, SourceOf, Unsupported, bool_or_test, example_source, is_none, is_one, literal_bool, whole)


def _common(args, source: SourceOf, what: str) -> dict:
    if not is_none(args.get("shared_name")):
        raise Unsupported("it sets `shared_name=` (a queue shared between sessions), which tf.data has no "
                          "counterpart for")
    if "batch_size" not in args:
        raise Unsupported("it has no batch_size argument")
    threads = args.get("num_threads")
    return dict(
        batch_size=source(args["batch_size"]),
        num_threads=None if is_one(threads) else source(threads),
        allow_smaller_final_batch=bool_or_test(
            args.get("allow_smaller_final_batch"), False, "allow_smaller_final_batch", source),
        enqueue_many=literal_bool(args.get("enqueue_many"), False, "enqueue_many"),
        dynamic_pad=literal_bool(args.get("dynamic_pad"), False, "dynamic_pad"),
        shapes=_shapes(args.get("shapes"), source),
        name=None if is_none(args.get("name")) else source(args["name"]),
    )


def _shapes(shapes, source: SourceOf) -> Tuple[str, ...]:
    """One shape's source per batched tensor, from a literal list of `shapes=`."""
    if is_none(shapes):
        return ()
    if not isinstance(shapes, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement) for e in shapes.elements):
        raise Unsupported("its `shapes=` is computed, so the shape of each tensor cannot be read")
    return tuple(source(element.value) for element in shapes.elements)


def shuffle_buffer(args, source: SourceOf) -> str:
    """The shuffle buffer: `min_after_dequeue`, what the queue kept to mix every dequeue with.
    `args` may give the batching's `batch_size` (a node, or its source).

    (TF's own deprecation notice: `Dataset.shuffle(min_after_dequeue)`.) With a literal 0 the
    queue mixed whatever it held, at most `capacity`, and a buffer must hold at least one.
    """
    keep = args.get("min_after_dequeue")
    if keep is None or (isinstance(keep, cst.Integer) and keep.evaluated_value == 0):
        return whole(args["capacity"], source)
    size = args.get("batch_size")
    if _positive(keep, size if isinstance(size, str) or size is None else source(size), source):
        return whole(keep, source)
    # A computed value may be 0 (`len(files) // 100` of a small set): the queue then mixed what it
    # held, while a buffer of 0 fails when the pipeline first runs. Both are Python ints (the
    # queue's constructor took them), so `or` picks the capacity only then.
    return "%s or %s" % tuple(_or_operand(node, whole(node, source)) for node in (keep, args["capacity"]))


def _positive(node: cst.BaseExpression, batch_size: Optional[str], source: SourceOf) -> bool:
    """Whether a queue size is above 0 whenever the batching runs: a positive integer, the batch
    size (the source of the batching's; a batch of 0 examples batches nothing), or a sum or
    product of those."""
    if isinstance(node, cst.Integer):
        return node.evaluated_value > 0
    if batch_size is not None and source(node) == batch_size:
        return True
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Multiply, cst.Add)) and \
        _positive(node.left, batch_size, source) and _positive(node.right, batch_size, source)


def _or_operand(node: cst.BaseExpression, text: str) -> str:
    """`text` as an operand of `or`: only a conditional expression or a lambda binds more loosely."""
    return "(%s)" % text if isinstance(node, (cst.IfExp, cst.Lambda)) and not node.lpar else text


class Batch(Rule):
    """`tf.train.batch` becomes `map(num_parallel_calls=num_threads)` → `batch` → `prefetch`.

    ## Why
    The batching queue and its runner threads are replaced by dataset stages.

    ## Fix safety
    Safe. Without `allow_smaller_final_batch=True` the remainder is dropped, as the queue never
    produced a partial batch, and the batch dimension stays static (on 1.8 through
    `tf.contrib.data.batch_and_drop_remainder`). `allow_smaller_final_batch` given by a Python
    test of names and literals (`final_batch`, `num_epochs is not None`) becomes that test around
    the two batchings, made where the batch was made. Records keep their order; with several threads
    the queue's order was already nondeterministic. `enqueue_many=True` (each input a batch of
    examples) becomes an `unbatch` after the per-record code; `dynamic_pad=True` becomes
    `padded_batch` over the dataset's own shapes, padding with 0 or "" to the longest in the
    batch as the PaddingFIFOQueue did. A literal `shapes=` is set on the tensors the map function
    returns (`image.set_shape([32, 32, 3])`), where the queue set it on its components, and a
    name's is checked for each record, as the queue checked each enqueue (`tf.ensure_shape` from
    1.12; on 1.8 an `assert_equal` of `tf.shape` under a control dependency, for a literal shape
    of known dimensions).
    A literal `batch_size=1` becomes `map(lambda tensor: tf.expand_dims(tensor, 0))`: the same
    `[1, ...]` static shape without `batch`'s copy of every element (measured on 1.8 with
    1024x1024 float elements: 640 batches/s, `batch(1)` 258, `batch_and_drop_remainder(1)`
    190, the queue 327).
    Records of several independent producer → reader chains (or batched range_input_producer
    dequeues) combined in one batch become `Dataset.zip` of the chains' datasets, each with its
    own shuffle, epochs and seed: each run of the enqueue op read one record of each chain, and
    the run that met the end of a chain ended the queue, as the zip ends with its first part.
    With one thread the pairs are the queue's; with several, the queue's threads could pair
    records of different runs, a race the zip does not have.

    ## Limitations
    `shapes=` must be a literal list and the batched tensors plain names (not with
    `enqueue_many`); `shared_name=` is not rewritten. Chains are zipped only when each is a
    plain producer → reader chain in the block giving one tensor per record (or a reader helper
    given its queue, whose call then takes the record; no other helper, key, hand-built queue,
    reader loop or towers). A chain made in an arm of an `if`/`else` that works on the records of
    a chain made just before the `if`, batched after it, is zipped with it in that arm: the first
    chain and the batching are written into each arm (zipped_arms), only when they are simple
    statements of the function's own body, the `if` has an `else`, its tests call nothing but
    `len()` and its arms fall through; otherwise reported (the arm would move into the map
    function). The batched tensors may be a name when its
    structure is known: a slice producer's whole output, or a literal list, tuple or dict (or a
    parsed example) bound once by the per-record code and, for a list, not used again before the
    batch; the batch comes back as a dict, a list, or the tensor itself for a list of one.
    A batch in each arm of an `if`/`else` (one statement an arm, the same targets or a `return`)
    shares one dataset built before the `if`; each arm gets its own shuffle, repeat, batch and
    iterator, under the same Python condition (also `batch_join` / `shuffle_batch_join` arms over
    the same list of readers' records). Both arms must batch the same tensors with the same
    `num_threads`, `enqueue_many`, `keep_input` and `shapes=`. A batch of one stays `batch` for a dict, for
    `allow_smaller_final_batch` or `dynamic_pad`, and in a module that may build sparse tensors
    (`expand_dims` takes no SparseTensor).
    """

    code = "QM301"
    names = ("tensorflow.train.batch",)
    signature = ("tensors", "batch_size", "num_threads", "capacity", "enqueue_many", "shapes",
                 "dynamic_pad", "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.batch builds batches with a queue"
    advice = "batch a tf.data dataset: dataset.map(parse).batch(n) and a one-shot iterator"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import input as tf_input

            def inputs(files):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                parsed = tf.parse_single_example(record, {'x': tf.FixedLenFeature([], tf.float32)})
                xs = tf_input.batch([parsed['x']], batch_size=10, num_threads=4, allow_smaller_final_batch=True)
                return xs
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                def parse_record(record):
                    parsed = tf.parse_single_example(record, {'x': tf.FixedLenFeature([], tf.float32)})
                    return parsed['x']

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record, num_parallel_calls=4)
                dataset = dataset.repeat()
                dataset = dataset.batch(10)
                dataset = dataset.prefetch(1)
                xs = dataset.make_one_shot_iterator().get_next()
                return xs
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf

            def chunks(files):
                queue = tf.train.string_input_producer(files)
                reader = tf.FixedLengthRecordReader(record_bytes=16)
                _, value = reader.read(queue)
                rows = tf.reshape(tf.decode_raw(value, tf.uint8), [4, 4])
                return tf.train.batch([rows], batch_size=8, enqueue_many=True)
            """),
            after=example_source("""
            import tensorflow as tf

            def chunks(files):
                def parse_record(value):
                    rows = tf.reshape(tf.decode_raw(value, tf.uint8), [4, 4])
                    return rows

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=16))
                dataset = dataset.map(parse_record)
                dataset = dataset.apply(tf.contrib.data.unbatch())
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow.compat.v1 as tf1

            def sentences(files):
                queue = tf1.train.string_input_producer(files, shuffle=False)
                reader = tf1.TextLineReader()
                _, line = reader.read(queue)
                words = tf1.string_split([line]).values
                return tf1.train.batch([words], batch_size=16, dynamic_pad=True, allow_smaller_final_batch=True)
            """),
            after=example_source("""
            import tensorflow.compat.v1 as tf1
            import tensorflow as tf

            def sentences(files):
                def parse_record(line):
                    words = tf1.string_split([line]).values
                    return words

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(tf.data.TextLineDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.padded_batch(16, dataset.output_shapes)
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf

            def matrix_rows(files, n):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = tf.FixedLengthRecordReader(record_bytes=4 * n)
                _, value = reader.read(queue)
                row = tf.reshape(tf.decode_raw(value, tf.float32), [n])
                row_batch = tf.train.batch([row], batch_size=1)
                return tf.reshape(row_batch, [n])
            """),
            after=example_source("""
            import tensorflow as tf

            def matrix_rows(files, n):
                def parse_record(value):
                    row = tf.reshape(tf.decode_raw(value, tf.float32), [n])
                    return row

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=4 * n))
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.map(lambda tensor: tf.expand_dims(tensor, 0))
                dataset = dataset.prefetch(1)
                row_batch = dataset.make_one_shot_iterator().get_next()
                return tf.reshape(row_batch, [n])
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        return Batching(**_common(args, source, "batch"))


class ShuffleBatch(Rule):
    """`tf.train.shuffle_batch` becomes `map` → `shuffle_and_repeat(min_after_dequeue)` → `batch` → `prefetch`.

    ## Why
    The RandomShuffleQueue becomes a shuffle buffer of `min_after_dequeue` examples, what the
    queue promised to mix every dequeue with (capacity only bounded it), as TF's own deprecation
    notice advises; the buffer fills as fast as the queue began dequeuing. The fused
    `shuffle_and_repeat` (1.8: `tf.contrib.data`, 1.12+: `tf.data.experimental`; TF 2 fuses
    `shuffle().repeat()` itself) reads the next epoch into the buffer while this one drains, as
    the queue kept filling: a plain `shuffle().repeat()` empties the buffer at every epoch end
    and refills it before the next batch (measured on 1.8: a stall of the whole buffer's read
    time per epoch, +24% wall time for a loop with 40 ms model steps on 4 towers).

    ## Fix safety
    Safe. Epoch semantics: every example once per epoch, epoch ends kept (each run of an epoch's
    worth of examples is one whole epoch, shuffled; measured on 1.8, 1.15 and 2.21), so over
    `num_epochs` each example comes exactly `num_epochs` times. The queue mixed neighbouring
    epochs, a looser guarantee. When towers took their batches from one queue (slim's
    `prefetch_queue`), each tower's shard gets `min_after_dequeue // num_shards`: the same
    memory, first fill and span of records mixed as the one queue; and `num_threads //
    num_shards` parallel calls, the queue's threads (all of them per shard oversubscribed the
    CPU: 1.04-1.05x the queue's time at 40 ms steps, a step over 2x the median). A literal
    `min_after_dequeue=0` keeps `capacity` (the queue mixed what it held); a computed one, which
    may be 0 (`len(files) // 100`), becomes `min_after_dequeue or capacity`, as a buffer of 0 is
    an error. The seed is kept. Partial batches are
    dropped unless `allow_smaller_final_batch=True`, as before. With `enqueue_many=True` the
    examples are unbatched before the shuffle, so single examples are shuffled, as in the queue;
    a literal `shapes=` is set in the map function, as for `batch`. In-memory arrays batched with
    `enqueue_many=True` (each made by a `tf.constant` or NumPy call, in the batching or bound once
    before it) are their rows over and over, in order: `Dataset.from_tensor_slices` of them,
    shuffled and repeated.

    ## Limitations
    As `batch`: `shapes=` literal, over plain names; `shared_name=` is not rewritten. Zipped
    chains (as for `batch`) are shuffled as whole elements after the zip, without a repeat:
    each chain repeated its own epochs before it.
    """

    code = "QM302"
    names = ("tensorflow.train.shuffle_batch",)
    signature = ("tensors", "batch_size", "capacity", "min_after_dequeue", "num_threads", "seed",
                 "enqueue_many", "shapes", "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.shuffle_batch shuffles and batches with a queue"
    advice = ("shuffle and batch a tf.data dataset: dataset.map(parse), "
              "shuffle_and_repeat(min_after_dequeue), batch(n)")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.train import shuffle_batch

            def inputs(files):
                queue = tf.train.string_input_producer(files)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([], tf.float32)})['x']
                xs, doubled = shuffle_batch([x, x * 2], batch_size=10, capacity=100, min_after_dequeue=50, seed=3)
                return xs, doubled
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                def parse_record(record):
                    x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([], tf.float32)})['x']
                    return x, x * 2

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(50, seed=3))
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(10))
                dataset = dataset.prefetch(1)
                xs, doubled = dataset.make_one_shot_iterator().get_next()
                return xs, doubled
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        if "capacity" not in args:
            raise Unsupported("it has no capacity argument")
        seed = args.get("seed")
        return Batching(
            shuffle_buffer=shuffle_buffer(args, source),
            seed=None if is_none(seed) else source(seed),
            **_common(args, source, "shuffle_batch")
        )


_JOIN_BEFORE = example_source("""
    import tensorflow as tf

    def read_my_file_format(filename_queue):
        reader = tf.TextLineReader(skip_header_lines=1)
        _, line = reader.read(filename_queue)
        label, feature = tf.decode_csv(line, record_defaults=[[0], [0.0]])
        return feature, label

    def input_pipeline(filenames, batch_size, read_threads=4):
        filename_queue = tf.train.string_input_producer(filenames, shuffle=True)
        example_list = [read_my_file_format(filename_queue) for _ in range(read_threads)]
        example_batch, label_batch = tf.train.shuffle_batch_join(
            example_list, batch_size=batch_size, capacity=1000, min_after_dequeue=500)
        return example_batch, label_batch
    """)


_JOIN_AFTER = example_source("""
    import tensorflow as tf

    def read_my_file_format(line):
        label, feature = tf.decode_csv(line, record_defaults=[[0], [0.0]])
        return feature, label

    def input_pipeline(filenames, batch_size, read_threads=4):
        def parse_record(line):
            example_list = read_my_file_format(line)
            return tuple(example_list)

        dataset = tf.data.Dataset.from_tensor_slices(filenames)
        dataset = dataset.shuffle(tf.size(filenames, out_type=tf.int64))
        dataset = dataset.interleave(lambda filename: tf.data.TextLineDataset(filename).skip(1), cycle_length=read_threads)
        dataset = dataset.map(parse_record, num_parallel_calls=read_threads)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(500))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        example_batch, label_batch = dataset.make_one_shot_iterator().get_next()
        return example_batch, label_batch
    """)


class BatchJoin(Rule):
    """`tf.train.batch_join` over `[read(queue) for _ in range(n)]` reads n files at a time: `interleave`.

    ## Why
    n readers on one file-name queue, each feeding the same batching queue, read n files at
    once; `Dataset.interleave(..., cycle_length=n)` does the same without threads, and the map
    runs n records at a time, as the n readers' enqueue ops did. The reader helper is migrated to
    take the record, as with one reader. A loop that copies the per-record code n times over one
    record read (or dequeued from a hand-built queue) before it (`for _ in range(n): image =
    decode(serialized); images.append([image, label])`) is n threads each taking its own record
    (each run of an enqueue op runs the read again): one map, `num_parallel_calls=n`.

    ## Fix safety
    Safe. Every record of every file once per epoch, as before; the order in which records of
    the n files mix was already up to the threads and is now round-robin.

    ## Limitations
    The list must be a comprehension of one reader-helper call (`[read(q) for _ in range(n)]`)
    whose helper returns a literal tuple, list or dict, or be built by a loop
    `for _ in range(n):` that makes a reader, reads the queue, runs the per-record code and
    appends a literal list, tuple or dict (or the call of such a helper) to a list made empty
    just before (qmigrate/joins.py); a loop whose tensors are used after it, or whose readers
    differ by the loop variable, is reported. A loop of copies over one record must not use its
    variable, break out, or read a name before binding it again (a value carried from one copy
    to the next). A literal list of one tensor list (`batch_join([(image, label)], ...)`, one
    reader batched by one thread) is read as `tf.train.batch` of that tensor list when it is an
    arm of an if/else whose other arm batches the same tensors. Other lists of tensor lists are
    reported.
    """

    code = "QM303"
    names = ("tensorflow.train.batch_join",)
    signature = ("tensors_list", "batch_size", "capacity", "enqueue_many", "shapes", "dynamic_pad",
                 "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.batch_join batches the records of several readers with a queue"
    advice = "read the files with Dataset.interleave(dataset_class, cycle_length=n), then map and batch"
    examples = (
        Example(
            before=_JOIN_BEFORE.replace(
                "import tensorflow as tf\n",
                "import tensorflow as tf\nfrom tensorflow.python.training import input as tfi\n",
            ).replace("tf.train.shuffle_batch_join(\n        example_list, batch_size=batch_size, capacity=1000, "
                      "min_after_dequeue=500)", "tfi.batch_join(example_list, batch_size=batch_size)"),
            after=_JOIN_AFTER.replace("dataset.apply(tf.contrib.data.shuffle_and_repeat(500))", "dataset.repeat()"),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        return Batching(**_common(args, source, "batch_join"))


class ShuffleBatchJoin(Rule):
    """`tf.train.shuffle_batch_join` over `[read(queue) for _ in range(n)]`: `interleave`, then `shuffle`.

    ## Why
    As `batch_join`, with the RandomShuffleQueue replaced by a shuffle buffer of its
    `min_after_dequeue`, filled across epoch ends (`shuffle_and_repeat`), as for `shuffle_batch`.

    ## Fix safety
    Safe, as `shuffle_batch`: every example once per epoch, epoch ends kept; the seed is kept.

    ## Limitations
    As `batch_join`.
    """

    code = "QM304"
    names = ("tensorflow.train.shuffle_batch_join",)
    signature = ("tensors_list", "batch_size", "capacity", "min_after_dequeue", "seed", "enqueue_many",
                 "shapes", "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.shuffle_batch_join shuffles and batches the records of several readers with a queue"
    advice = "read the files with Dataset.interleave(dataset_class, cycle_length=n), then map, shuffle and batch"
    examples = (
        Example(
            before=_JOIN_BEFORE.replace("tf.train.shuffle_batch_join(", "tfb.shuffle_batch_join(").replace(
                "import tensorflow as tf\n", "import tensorflow as tf\nfrom tensorflow import train as tfb\n"),
            after=_JOIN_AFTER,
        ),
    )

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        return ShuffleBatch.model(args, source, resolve)


def _keep_input(args, source: SourceOf) -> Optional[str]:
    keep = args.get("keep_input")
    if keep is None:
        raise Unsupported("it has no keep_input argument")
    if isinstance(keep, cst.Name) and keep.value == "True":
        return None
    return source(keep)


class MaybeBatch(Rule):
    """`tf.train.maybe_batch` keeps the records whose `keep_input` holds: `filter`, then `batch`.

    ## Why
    The queue enqueued only kept records; the map function now returns `keep_input` beside each
    record and a `filter` drops the others before batching.

    ## Fix safety
    Safe, as `batch`: the same records in the same order, batches of kept records only.

    ## Limitations
    As `batch`. A vector `keep_input` with `enqueue_many=True` is unbatched with the records.
    """

    code = "QM305"
    names = ("tensorflow.train.maybe_batch",)
    signature = ("tensors", "keep_input", "batch_size", "num_threads", "capacity", "enqueue_many", "shapes",
                 "dynamic_pad", "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.maybe_batch batches the records it keeps with a queue"
    advice = "filter a tf.data dataset by the condition, then batch it"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import input as tf_input

            def labelled_only(files, batch_size):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                parsed = tf.parse_single_example(record, {'label': tf.FixedLenFeature([], tf.int64)})
                label = parsed['label']
                return tf_input.maybe_batch([record, label], tf.greater_equal(label, 0), batch_size)
            """),
            after=example_source("""
            import tensorflow as tf

            def labelled_only(files, batch_size):
                def parse_record(record):
                    parsed = tf.parse_single_example(record, {'label': tf.FixedLenFeature([], tf.int64)})
                    label = parsed['label']
                    return (record, label), tf.greater_equal(label, 0)

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.filter(lambda element, keep: keep)
                dataset = dataset.map(lambda element, keep: element)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return list(dataset.make_one_shot_iterator().get_next())
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        return Batching(keep_input=_keep_input(args, source), **_common(args, source, "maybe_batch"))


class MaybeShuffleBatch(Rule):
    """`tf.train.maybe_shuffle_batch`: `filter` by `keep_input`, then `shuffle` and `batch`.

    ## Why
    As `maybe_batch`, with the RandomShuffleQueue replaced by a shuffle buffer of its
    `min_after_dequeue`, filled across epoch ends, as for `shuffle_batch`.

    ## Fix safety
    Safe, as `shuffle_batch`: only kept records enter the shuffle buffer, as only they entered
    the queue.

    ## Limitations
    As `shuffle_batch`.
    """

    code = "QM306"
    names = ("tensorflow.train.maybe_shuffle_batch",)
    signature = ("tensors", "batch_size", "capacity", "min_after_dequeue", "keep_input", "num_threads", "seed",
                 "enqueue_many", "shapes", "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.maybe_shuffle_batch shuffles and batches the records it keeps with a queue"
    advice = "filter a tf.data dataset by the condition, then shuffle and batch it"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training.input import maybe_shuffle_batch

            def positives(files, batch_size):
                queue = tf.train.string_input_producer(files)
                reader = tf.TextLineReader()
                _, line = reader.read(queue)
                value = tf.string_to_number(line)
                return maybe_shuffle_batch([value], batch_size, capacity=100, min_after_dequeue=10,
                                           keep_input=value > 0)
            """),
            after=example_source("""
            import tensorflow as tf

            def positives(files, batch_size):
                def parse_record(line):
                    value = tf.string_to_number(line)
                    return value, tf.convert_to_tensor(value > 0, tf.bool)

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TextLineDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.filter(lambda element, keep: keep)
                dataset = dataset.map(lambda element, keep: element)
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10))
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        return dataclasses.replace(ShuffleBatch.model(args, source, resolve), keep_input=_keep_input(args, source))
