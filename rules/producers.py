"""Producers: queues of file names that feed readers."""
import libcst as cst

from qmigrate.model import FileSource, SliceSource
from qmigrate.rules.base import (
    Example, Rule, SourceOf, Unsupported, bool_or_condition, example_source, is_none)


MATCH_FILENAMES_ONCE = "tensorflow.train.match_filenames_once"
# What the four producers take when a call leaves the argument out (as the models below read them).
DEFAULTS = {"num_epochs": "None", "shuffle": "True", "seed": "None"}


class StringInputProducer(Rule):
    """`string_input_producer` feeding a reader becomes a shuffled, repeated dataset of file names.

    ## Why
    The producer is a queue filled by a queue runner thread; tf.data needs neither.

    ## Fix safety
    Safe. The file order is shuffled every epoch as before (the producer shuffles by default),
    `num_epochs` becomes `repeat(num_epochs)` and `seed` stays the shuffle's seed. The random
    order itself differs from the queue's (another random stream).

    File names from `match_filenames_once(pattern)` (a local variable, which a one-shot iterator
    cannot capture) come from `tf.matching_files(pattern)`, the op that variable was initialised
    from: the same names in the same order (a variable with other uses stays for them). A computed
    file list (a call, the MatchingFiles op) is bound to a name once, before the dataset, which
    reads it twice when it shuffles the files (the slices and the buffer size).

    A read whose records no queue batches (returned to a caller, kept on `self`, run one per step)
    becomes the dataset's one-shot `get_next()` where the read was, the files repeated
    `num_epochs` times after the read; the code after it stays where it is.

    Dequeued directly, with no reader (`ids = string_input_producer(ids).dequeue()`, example ids
    loaded by a py_func), its rows are the records, as for slice_input_producer: the same
    shuffle, epochs and seed; the code between the dequeue and the batching is the map function.
    The row may be stored into a dict made empty just before (`d = {}`, `d['id'] = ...`), then
    made anew in the map function. A function returning that dict beside its batches returns a
    dict of the same structure, one record of an iterator of its own, only when every caller in
    the files migrated together discards it (`_, batches = f(...)`).

    ## Limitations
    `shuffle=` becomes a Python `if` around the shuffle, the test the producer made itself when
    the graph was built. A literal, a plain name (`shuffle`), an attribute of one
    (`self.is_training`) or a test of names and literals (`mode == 'train'`) is tested where the
    dataset is built (the read, or the batch): with an attribute, nothing between may store into
    its object or call anything but a TensorFlow API (which could change it), or the pipeline
    stays. Any other test of names, attributes and literals (`a.mode == 'train'`,
    `not FLAGS.eval`) is evaluated where the producer stood, into a name of its own
    (`shuffle_files = a.mode == 'train'`), which the dataset tests: this needs the producer's
    own statement (`queue = producer(...)`) in the block that builds the dataset. A test that
    calls a function or subscripts is not rewritten.
    """

    code = "QM101"
    names = ("tensorflow.train.string_input_producer",)
    signature = ("string_tensor", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name", "cancel_op")
    message = "string_input_producer queue feeds a reader"
    advice = ("build the file names with tf.data.Dataset.from_tensor_slices(files), then .shuffle(len(files)) as the "
              "producer shuffled each epoch (not for shuffle=False) and .repeat(num_epochs)")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tflow

            def inputs(files):
                queue = tflow.train.string_input_producer(files, num_epochs=3, seed=42)
                reader = tflow.TFRecordReader()
                _, record = reader.read(queue)
                return tflow.train.batch([record], batch_size=32)
            """),
            after=example_source("""
            import tensorflow as tflow

            def inputs(files):
                dataset = tflow.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tflow.size(files, out_type=tflow.int64), seed=42)
                dataset = dataset.flat_map(tflow.data.TFRecordDataset)
                dataset = dataset.repeat(3)
                dataset = dataset.apply(tflow.contrib.data.batch_and_drop_remainder(32))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )

    @classmethod
    def model(cls, args, source: SourceOf, resolve) -> FileSource:
        files = args.get("string_tensor")
        if files is None:
            raise Unsupported("it has no file names argument")
        pattern = None
        if isinstance(files, cst.Call) and resolve(files.func) == MATCH_FILENAMES_ONCE:
            # A local variable a one-shot iterator cannot capture; the MatchingFiles op it is
            # initialised from gives the same names in the same order, as a tensor.
            if len(files.args) != 1 or files.args[0].star or (
                    files.args[0].keyword is not None and files.args[0].keyword.value != "pattern"):
                raise Unsupported("its match_filenames_once() call passes more than the pattern")
            pattern = source(files.args[0].value)
        for unsupported in ("shared_name", "cancel_op"):
            if not is_none(args.get(unsupported)):
                raise Unsupported("it sets `%s`, which has no tf.data counterpart" % unsupported)
        epochs = args.get("num_epochs")
        seed = args.get("seed")
        return FileSource(
            files="" if pattern is not None else source(files),
            pattern=pattern,
            num_epochs=None if is_none(epochs) else source(epochs),
            shuffle=bool_or_condition(args.get("shuffle"), True, "shuffle", source),
            seed=None if is_none(seed) else source(seed),
        )


class InputProducer(Rule):
    """`input_producer` of file names feeding a reader: `string_input_producer` under its general name.

    ## Why
    `tf.train.input_producer(tensor, ...)` queues the rows of a tensor; `string_input_producer`
    is that call for file names. Code that reads files through it (`reader.read(path_queue)`)
    is the same pipeline and migrates the same way.

    ## Fix safety
    Safe, as for `string_input_producer` (QM101): the rows are file names, shuffled every epoch
    unless `shuffle=False`, repeated `num_epochs` times. `capacity` and `summary_name` (the
    queue's fill-level summary) concern the queue only and go with it.

    ## Limitations
    Only as the queue of a reader, with no `element_shape` (the rows are then the elements of a
    list of file names); any other use is reported with the reason.
    """

    code = "QM105"
    names = ("tensorflow.train.input_producer",)
    signature = ("input_tensor", "element_shape", "num_epochs", "shuffle", "seed", "capacity", "shared_name",
                 "summary_name", "name", "cancel_op")
    message = "input_producer queue feeds a reader"
    advice = ("build the rows with tf.data.Dataset.from_tensor_slices(tensor), then .shuffle(n) as the producer "
              "shuffled each epoch (not for shuffle=False) and .repeat(num_epochs) (and read file names with the "
              "matching dataset)")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def examples(path, training):
                reader = tf.TFRecordReader()
                path_queue = tf.train.input_producer([path], num_epochs=None if training else 1,
                                                     shuffle=training, capacity=16)
                _, serialized = reader.read(path_queue)
                return tf.train.batch([serialized], batch_size=4)
            """),
            after=example_source("""
            import tensorflow as tf

            def examples(path, training):
                dataset = tf.data.Dataset.from_tensor_slices([path])
                if training:
                    dataset = dataset.shuffle(tf.size([path], out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat(None if training else 1)
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(4))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import input as tf_input

            def lines(files):
                queue = tf_input.input_producer(files, shuffle=False, summary_name='files')
                _, line = tf.TextLineReader().read(queue)
                return tf.train.batch([line], batch_size=8)
            """),
            after=example_source("""
            import tensorflow as tf

            def lines(files):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(tf.data.TextLineDataset)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )

    @classmethod
    def model(cls, args, source: SourceOf, resolve) -> FileSource:
        if not is_none(args.get("element_shape")):
            raise Unsupported("it sets `element_shape`: its rows are not a list of file names")
        renamed = {"string_tensor" if key == "input_tensor" else key: value for key, value in args.items()
                   if key not in ("element_shape", "summary_name")}
        if isinstance(renamed.get("string_tensor"), cst.Call) and \
                resolve(renamed["string_tensor"].func) == MATCH_FILENAMES_ONCE:
            raise Unsupported("its rows come from match_filenames_once(), which it does not take as file names")
        return StringInputProducer.model(renamed, source, resolve)


class SliceInputProducer(Rule):
    """`slice_input_producer` becomes `Dataset.from_tensor_slices` over the same tensors, shuffled per epoch.

    ## Why
    The producer slices the tensors row by row into a queue filled by a runner thread; a dataset
    of slices gives the same rows without one. Its outputs are the records: the code between it
    and the batching becomes the map function.

    ## Fix safety
    Safe. Rows are shuffled over the whole set anew every epoch, as the producer's per-epoch
    permutation did: `shuffle_and_repeat(number of rows, num_epochs)` (`seed` carried over), which
    draws the next epoch's order while this one drains, where `shuffle(rows).repeat()` read every
    row into its buffer again before each epoch's first batch (a pause at every epoch boundary:
    137 ms against a 0.4 ms median fetch for 50,000 CIFAR-sized rows under TF 1.8,
    bench/slice_epoch_bench.py). A `shuffle_batch` after such rows adds no buffer: the rows are in
    a new order every epoch already, and the epochs stay whole. With a `shuffle` test and a
    shuffling batch, or towers' shards, rows are shuffled by `shuffle(rows)` and repeated after.
    The random order itself differs from the queue's (another random stream).

    ## Limitations
    `tensor_list` must be a literal list or tuple; `shuffle=` a literal, a name, an attribute
    or a test of those (as for string_input_producer); `capacity` (the queue's size) has no
    counterpart and is dropped; `shared_name` is not rewritten. Rows given as numpy
    arrays become graph constants, as with the producer, and once more for the shuffle's size
    (`tf.shape` of the first): for arrays of hundreds of MB, feed them through placeholders and
    an initializable iterator instead.
    """

    code = "QM102"
    names = ("tensorflow.train.slice_input_producer",)
    signature = ("tensor_list", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name")
    message = "slice_input_producer queue feeds rows of tensors"
    advice = ("build the rows with tf.data.Dataset.from_tensor_slices((a, b)), then .shuffle(n) as the producer "
              "shuffled each epoch (not for shuffle=False) and .repeat(num_epochs)")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import input as tf_input

            def image_batches(paths, labels, batch_size):
                path, label = tf_input.slice_input_producer([paths, labels], num_epochs=2, seed=7)
                image = tf.image.decode_jpeg(tf.read_file(path), channels=3)
                image = tf.image.resize_images(image, [64, 64])
                return tf.train.shuffle_batch([image, label], batch_size, capacity=500, min_after_dequeue=100)
            """),
            after=example_source("""
            import tensorflow as tf

            def image_batches(paths, labels, batch_size):
                def parse_record(path, label):
                    image = tf.image.decode_jpeg(tf.read_file(path), channels=3)
                    image = tf.image.resize_images(image, [64, 64])
                    return image, label

                dataset = tf.data.Dataset.from_tensor_slices((paths, labels))
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(paths, out_type=tf.int64)[0], 2, seed=7))
                dataset = dataset.map(parse_record)
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return list(dataset.make_one_shot_iterator().get_next())
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf

            def read_images(image_list, label_list):
                input_queue = tf.train.slice_input_producer([image_list, label_list], shuffle=False)
                image = tf.image.decode_png(tf.read_file(input_queue[0]), channels=1)
                image.set_shape([28, 28, 1])
                images, labels = tf.train.batch([image, input_queue[1]], batch_size=64, num_threads=4)
                return images, labels
            """),
            after=example_source("""
            import tensorflow as tf

            def read_images(image_list, label_list):
                def parse_record(*input_queue):
                    image = tf.image.decode_png(tf.read_file(input_queue[0]), channels=1)
                    image.set_shape([28, 28, 1])
                    return image, input_queue[1]

                dataset = tf.data.Dataset.from_tensor_slices((image_list, label_list))
                dataset = dataset.map(parse_record, num_parallel_calls=4)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(64))
                dataset = dataset.prefetch(1)
                images, labels = dataset.make_one_shot_iterator().get_next()
                return images, labels
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf

            def rows(tensors):
                row = tf.train.slice_input_producer(tensors)
                return tf.train.batch(row, batch_size=4)
            """),
        ),
    )

    @classmethod
    def model(cls, args, source: SourceOf, resolve) -> SliceSource:
        tensors = args.get("tensor_list")
        if not isinstance(tensors, (cst.List, cst.Tuple)) or not tensors.elements:
            raise Unsupported("its `tensor_list` is not a literal list or tuple, so the rows' structure is unknown")
        if any(isinstance(element, cst.StarredElement) for element in tensors.elements):
            raise Unsupported("its `tensor_list` is built with *unpacking")
        if not is_none(args.get("shared_name")):
            raise Unsupported("it sets `shared_name`, which has no tf.data counterpart")
        epochs, seed = args.get("num_epochs"), args.get("seed")
        return SliceSource(
            tensors=tuple(source(element.value) for element in tensors.elements),
            num_epochs=None if is_none(epochs) else source(epochs),
            shuffle=bool_or_condition(args.get("shuffle"), True, "shuffle", source),
            seed=None if is_none(seed) else source(seed),
        )


class MatchFilenamesOnce(Rule):
    """`match_filenames_once(pattern)` feeding a migrated producer becomes `tf.matching_files(pattern)`.

    ## Why
    `match_filenames_once` keeps the matched names in a local variable, which a one-shot iterator
    cannot capture; the MatchingFiles op that variable was initialised from gives the same names,
    in the same order, as a tensor.

    ## Fix safety
    Safe: rewritten only inside a pipeline qmigrate migrates, in the producer's call or through a
    name. The pattern is matched when the iterator starts, as the variable was matched when local
    variables were initialised. A variable also used elsewhere (printed, counted, fed to other
    code) stays for those uses, still initialised with local variables; the dataset lists the same
    pattern itself (both see the same files unless files are added or removed in between).

    ## Limitations
    What the pattern reads must not be reassigned between the variable and the read.
    """

    code = "QM103"
    names = (MATCH_FILENAMES_ONCE,)
    signature = ("pattern", "name")
    message = "match_filenames_once keeps file names in a local variable for a producer"
    advice = ("list the files with tf.matching_files(pattern) (tf.io.matching_files in 2.x) where the "
              "dataset is built; keep the variable only for its other uses")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import input as tf_input

            def inputs(pattern, batch_size):
                # Every shard of the training set.
                filenames = tf_input.match_filenames_once(pattern)
                queue = tf.train.string_input_producer(filenames, num_epochs=1)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                return tf.train.batch([record], batch_size=batch_size)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(pattern, batch_size):
                # Every shard of the training set.
                files = tf.matching_files(pattern)
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat(1)
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf

            def inputs(pattern, batch_size):
                filenames = tf.train.match_filenames_once(pattern)
                queue = tf.train.string_input_producer(filenames)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                tf.summary.scalar('files', tf.size(filenames))
                return tf.train.batch([record], batch_size=batch_size)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(pattern, batch_size):
                filenames = tf.train.match_filenames_once(pattern)
                tf.summary.scalar('files', tf.size(filenames))
                files = tf.matching_files(pattern)
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )


class RangeInputProducer(Rule):
    """`range_input_producer(limit).dequeue()` becomes an iterator over `Dataset.range(limit)`.

    ## Why
    The producer queues the indices 0..limit-1, shuffled per epoch by default, and a runner
    thread refills it; the PTB reader takes one index per step to slice its data. A dataset of
    the same range gives the same indices without a queue.

    ## Fix safety
    Safe: the same indices in the same order (`shuffle=False`), or a new permutation every epoch
    (`shuffle=True`, as the producer: `shuffle_and_repeat` over the whole range, which draws the
    next permutation while this one drains); `num_epochs` and `seed` carry over; the
    index is int32 as before (tf.data's range is int64). `dequeue_many(n)` takes n indices at a
    time, across epoch ends as the queue gave them: a batch of n after the repeat (a last, smaller
    batch dropped, as dequeue_many never gave it; kept for `dequeue_up_to(n)`); the dequeue's op
    name names the index tensor (`tf.cast(..., name=...)`). A `shuffle` given as a name or a test
    of names (`shuffle=shuffle`, a parameter) is tested with a Python `if` where the dataset is
    built, as the producer tested it when the graph was built.

    ## Limitations
    Only the producer's `dequeue()`, `dequeue_many(n)` or `dequeue_up_to(n)`, in place or through
    a name used once; other uses of the queue are reported. A `shuffle` computed with an
    attribute, call or subscript is reported.
    """

    code = "QM104"
    names = ("tensorflow.train.range_input_producer",)
    signature = ("limit", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name")
    message = "range_input_producer queues step indices"
    advice = "iterate over tf.data.Dataset.range(limit) (.shuffle(limit) per epoch when it shuffled)"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def ptb_producer(data, batch_size, num_steps):
                epoch_size = (tf.size(data) // batch_size - 1) // num_steps
                i = tf.train.range_input_producer(epoch_size, shuffle=False).dequeue()
                x = tf.strided_slice(data, [i * num_steps], [(i + 1) * num_steps])
                return x
            """),
            after=example_source("""
            import tensorflow as tf

            def ptb_producer(data, batch_size, num_steps):
                epoch_size = (tf.size(data) // batch_size - 1) // num_steps
                dataset = tf.data.Dataset.range(tf.cast(epoch_size, tf.int64))
                dataset = dataset.repeat()
                i = tf.cast(dataset.make_one_shot_iterator().get_next(), tf.int32)
                x = tf.strided_slice(data, [i * num_steps], [(i + 1) * num_steps])
                return x
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import input as tf_input

            def shuffled_steps(num_batches, epochs):
                steps = tf_input.range_input_producer(num_batches, num_epochs=epochs, seed=3)
                step = steps.dequeue()
                return step
            """),
            after=example_source("""
            import tensorflow as tf

            def shuffled_steps(num_batches, epochs):
                dataset = tf.data.Dataset.range(tf.cast(num_batches, tf.int64))
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.cast(num_batches, tf.int64), epochs, seed=3))
                step = tf.cast(dataset.make_one_shot_iterator().get_next(), tf.int32)
                return step
            """),
        ),
        Example(
            # The limit changes between the producer and its dequeue: left as it is.
            before=example_source("""
            import tensorflow as tf

            def steps(num_batches):
                queue = tf.train.range_input_producer(num_batches, shuffle=False)
                num_batches = num_batches * 2
                step = queue.dequeue()
                return step, num_batches
            """),
        ),
    )
