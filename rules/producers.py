"""Producers: queues of file names that feed readers."""
import libcst as cst

from qmigrate.model import FileSource
from qmigrate.rules.base import (
    Example, Rule, SourceOf, Unsupported, example_source, is_none, literal_bool)


class StringInputProducer(Rule):
    """`string_input_producer` feeding a reader becomes a shuffled, repeated dataset of file names.

    ## Why
    The producer is a queue filled by a queue runner thread; tf.data needs neither.

    ## Fix safety
    Safe. The file order is shuffled every epoch as before (the producer shuffles by default),
    `num_epochs` becomes `repeat(num_epochs)` and `seed` stays the shuffle's seed. The random
    order itself differs from the queue's (another random stream).

    ## Limitations
    `shuffle=` must be a literal. File names from `match_filenames_once` (a local variable)
    are not rewritten.
    """

    code = "QM101"
    names = ("tensorflow.train.string_input_producer",)
    signature = ("string_tensor", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name", "cancel_op")
    message = "string_input_producer queue feeds a reader"
    advice = "build the file names with tf.data.Dataset.from_tensor_slices(files).shuffle(...).repeat(...)"
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
        if isinstance(files, cst.Call) and resolve(files.func) == "tensorflow.train.match_filenames_once":
            raise Unsupported("its file names come from match_filenames_once, a variable that a one-shot "
                              "iterator cannot capture")
        for unsupported in ("shared_name", "cancel_op"):
            if not is_none(args.get(unsupported)):
                raise Unsupported("it sets `%s`, which has no tf.data counterpart" % unsupported)
        epochs = args.get("num_epochs")
        seed = args.get("seed")
        return FileSource(
            files=source(files),
            num_epochs=None if is_none(epochs) else source(epochs),
            shuffle=literal_bool(args.get("shuffle"), True, "shuffle"),
            seed=None if is_none(seed) else source(seed),
        )
