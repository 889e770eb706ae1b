"""Bucketing by length: `tf.contrib.training.bucket_by_sequence_length`."""
import libcst as cst

from qmigrate.model import Batching
from qmigrate.rules.base import Example, Rule, Unsupported, example_source, is_none
from qmigrate.rules.batching import _common


class BucketBySequenceLength(Rule):
    """`tf.contrib.training.bucket_by_sequence_length` becomes `map` → `repeat` → `group_by_window` of batches.

    ## Why
    One queue per bucket of lengths and a queue of their batches become one dataset stage:
    `group_by_window` keyed by the record's bucket, each window batched as the queue's
    dequeue batched it (`padded_batch` for `dynamic_pad=True`). The map function returns the
    length beside the tensors, so the batch is `(lengths, tensors)` as before.

    ## Fix safety
    Safe. A record goes to bucket i when `bucket_boundaries[i-1] <= input_length <
    bucket_boundaries[i]`, as in the queue; a bucket gives a batch when it holds `batch_size`
    records, every batch comes from one bucket, and every kept record reaches one batch once
    per epoch. At the end of the input the remainders of the buckets come out as smaller
    batches with `allow_smaller_final_batch=True`, and are dropped without it (the batch
    dimension then stays static, as the queue's was); given by a Python test of names and
    literals, each bucket's batching is chosen by it (`a if test else b`). Padding is 0 or "" to the longest in the
    batch, as the PaddingFIFOQueue did. `keep_input` becomes a `filter`, as for `maybe_batch`.
    Measured on TF 1.8, 1.15 and 2.21 (tests/test_bucketing_tf.py): the same examples with the
    same padding, each batch from one bucket. Batches of different buckets come in the order the
    buckets fill; the queue's order between buckets was up to its threads.

    Records one function returns and another buckets, handed from one to the other by their one
    caller (qmigrate/returned_dataset.py): the reader returns the mapped dataset, the bucketing
    function maps its per-record code over it and groups it. There `batch_size` may also be one
    size per bucket (`group_by_window`'s `window_size_func`, the batch dimension unknown as the
    queue's was); a name or item that may hold either is tested with `isinstance(..., (list,
    tuple))` where the batching is made, as bucket_by_sequence_length tested it.

    ## Limitations
    In one function, `batch_size` must be one size for every bucket (a literal list of per-bucket
    sizes is reported) and a Python integer or an int64 tensor; the tensors come back as a tuple where
    the queue gave a list (indexing and unpacking read the same). `shapes=` as for `batch`;
    `shared_name=` is not rewritten. `capacity` and `bucket_capacities` only bounded the queues'
    memory and go.
    """

    code = "QM309"
    names = ("tensorflow.contrib.training.bucket_by_sequence_length",)
    signature = ("input_length", "tensors", "batch_size", "bucket_boundaries", "num_threads", "capacity",
                 "bucket_capacities", "shapes", "dynamic_pad", "allow_smaller_final_batch", "keep_input",
                 "shared_name", "name")
    message = "tf.contrib.training.bucket_by_sequence_length batches records of similar length with queues"
    advice = ("group a tf.data dataset by length: dataset.apply(tf.contrib.data.group_by_window(bucket_of_length, "
              "lambda key, window: window.padded_batch(n, window.output_shapes), n)) (tf.data.experimental from 1.12)")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def sentences(files, batch_size):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = tf.TextLineReader()
                _, line = reader.read(queue)
                words = tf.string_split([line]).values
                lengths, (batch,) = tf.contrib.training.bucket_by_sequence_length(
                    tf.size(words), [words], batch_size, [5, 10], dynamic_pad=True, allow_smaller_final_batch=True)
                return lengths, batch
            """),
            after=example_source("""
            import tensorflow as tf

            def sentences(files, batch_size):
                def parse_record(line):
                    words = tf.string_split([line]).values
                    return tf.size(words), (words,)

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(tf.data.TextLineDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([5, 10], length), tf.int64)), lambda bucket, window: window.padded_batch(batch_size, window.output_shapes), batch_size))
                dataset = dataset.prefetch(1)
                lengths, (batch,) = dataset.make_one_shot_iterator().get_next()
                return lengths, batch
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.contrib.training import bucket_by_sequence_length

            def utterances(files):
                queue = tf.train.string_input_producer(files)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                parsed = tf.parse_single_example(record, {'frames': tf.FixedLenFeature([], tf.int64)})
                length = tf.to_int32(parsed['frames'])
                _, batch = bucket_by_sequence_length(length, {'length': length, 'raw': record}, 32, [100, 200])
                return batch
            """),
            after=example_source("""
            import tensorflow as tf

            def utterances(files):
                def parse_record(record):
                    parsed = tf.parse_single_example(record, {'frames': tf.FixedLenFeature([], tf.int64)})
                    length = tf.to_int32(parsed['frames'])
                    return length, {'length': length, 'raw': record}

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([100, 200], length), tf.int64)), lambda bucket, window: window.apply(tf.contrib.data.batch_and_drop_remainder(32)), 32))
                dataset = dataset.prefetch(1)
                _, batch = dataset.make_one_shot_iterator().get_next()
                return batch
            """),
        ),
        Example(  # one batch size per bucket: reported, left as it is
            before=example_source("""
            import tensorflow as tf

            def sentences(files):
                queue = tf.train.string_input_producer(files)
                _, line = tf.TextLineReader().read(queue)
                words = tf.string_split([line]).values
                _, (batch,) = tf.contrib.training.bucket_by_sequence_length(
                    tf.size(words), [words], [64, 32, 16], [10, 20], dynamic_pad=True)
                return batch
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        size = args.get("batch_size")
        if isinstance(size, (cst.List, cst.Tuple)):
            raise Unsupported("it gives each bucket its own batch size (a list `batch_size=`), which qmigrate does "
                              "not rewrite yet")
        if "bucket_boundaries" not in args or "input_length" not in args:
            raise Unsupported("it has no input_length or bucket_boundaries argument")
        keep = args.get("keep_input")
        keep = None if is_none(keep) or (isinstance(keep, cst.Name) and keep.value == "True") else source(keep)
        return Batching(bucket_boundaries=source(args["bucket_boundaries"]), keep_input=keep,
                        **_common(args, source, "bucket_by_sequence_length"))
