"""Readers: how a file becomes records (`reader.read(filename_queue)`)."""
import libcst as cst

from qmigrate.model import RecordReader
from qmigrate.rules.base import (
    Example, Rule, SourceOf, Unsupported, example_source, is_none)


class _Reader(Rule):
    kind = ""
    advice = "read the files with the matching tf.data dataset and move the per-record code into Dataset.map"

    @classmethod
    def model(cls, args, source: SourceOf, resolve) -> RecordReader:
        return RecordReader(cls.kind)


class TFRecordReader(_Reader):
    """`TFRecordReader` + `read()` becomes `tf.data.TFRecordDataset`.

    ## Why
    The reader pulls file names from a queue; the dataset reads them from the file-name dataset.

    ## Fix safety
    Safe: the same records in the same order within each file. `options=TFRecordOptions(ZLIB|GZIP)`
    becomes `compression_type=`: the only field of the options a reader uses (also when the options
    are a local name bound once, in the same block, to that call). A read whose key is used gets
    the reader's keys, `<file>:<byte offset>`, rebuilt by a scan over each file's record lengths.

    ## Limitations
    Options built elsewhere (a module constant, a parameter, a name bound twice) are not read.
    """

    code = "QM201"
    names = ("tensorflow.TFRecordReader",)
    signature = ("name", "options")
    message = "TFRecordReader reads from a queue"
    kind = "tfrecord"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            FEATURES = {'pixels': tf.FixedLenFeature([784], tf.float32), 'label': tf.FixedLenFeature([], tf.int64)}


            def mnist_inputs(files, batch_size):
                with tf.name_scope('input'):
                    queue = tf.train.string_input_producer(files, shuffle=False)
                    reader = tf.TFRecordReader()
                    _, serialized = reader.read(queue)
                    example = tf.parse_single_example(serialized, FEATURES)
                    images, labels = tf.train.batch([example['pixels'], example['label']], batch_size=batch_size)
                return images, labels
            """),
            after=example_source("""
            import tensorflow as tf

            FEATURES = {'pixels': tf.FixedLenFeature([784], tf.float32), 'label': tf.FixedLenFeature([], tf.int64)}


            def mnist_inputs(files, batch_size):
                with tf.name_scope('input'):
                    def parse_record(serialized):
                        example = tf.parse_single_example(serialized, FEATURES)
                        return example['pixels'], example['label']

                    dataset = tf.data.Dataset.from_tensor_slices(files)
                    dataset = dataset.flat_map(tf.data.TFRecordDataset)
                    dataset = dataset.map(parse_record)
                    dataset = dataset.repeat()
                    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                    dataset = dataset.prefetch(1)
                    images, labels = dataset.make_one_shot_iterator().get_next()
                return images, labels
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow import python_io as pio
            from tensorflow.python.ops.io_ops import TFRecordReader

            def inputs(files):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = TFRecordReader(options=pio.TFRecordOptions(pio.TFRecordCompressionType.GZIP))
                _, record = reader.read(queue)
                return tf.train.batch([record], batch_size=8)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(lambda filename: tf.data.TFRecordDataset(filename, compression_type="GZIP"))
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
        Example(
            # The reader made and read in one expression.
            before=example_source("""
            import tensorflow as tf

            def inputs(files):
                queue = tf.train.string_input_producer(files, num_epochs=1)
                _, record = tf.TFRecordReader().read(queue)
                return tf.train.batch([record], batch_size=8, allow_smaller_final_batch=True)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat(1)
                dataset = dataset.batch(8)
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf

            OPTIONS = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.ZLIB)

            def inputs(files):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = tf.TFRecordReader(options=OPTIONS)
                _, record = reader.read(queue)
                return tf.train.batch([record], batch_size=8)
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve):
        options = args.get("options")
        if is_none(options):
            return RecordReader(cls.kind)
        compression = _compression_type(options, source, resolve)
        return RecordReader(cls.kind, (("compression_type", compression),) if compression != '""' else ())


_OPTIONS = ("tensorflow.python_io.TFRecordOptions", "tensorflow.io.TFRecordOptions")
_COMPRESSION_ENUMS = ("tensorflow.python_io.TFRecordCompressionType.", "tensorflow.io.TFRecordCompressionType.")


def _compression_type(options: cst.BaseExpression, source: SourceOf, resolve) -> str:
    """The `compression_type` string for TFRecordDataset from `TFRecordOptions(...)`.

    A reader uses only the compression type of its options (the other fields tune writers),
    so that is all that carries over. Raises Unsupported for options built elsewhere.
    """
    if not (isinstance(options, cst.Call) and resolve(options.func) in _OPTIONS):
        raise Unsupported("its `options=` is not a TFRecordOptions(...) call in place, so the compression "
                          "type cannot be read; pass compression_type= to tf.data.TFRecordDataset by hand")
    kind = next((a.value for a in options.args if a.keyword is None or a.keyword.value == "compression_type"), None)
    if kind is None or is_none(kind):
        return '""'
    name = resolve(kind) or ""
    for prefix in _COMPRESSION_ENUMS:
        if name.startswith(prefix):
            member = name[len(prefix):]
            return '"%s"' % ("" if member == "NONE" else member)
    if isinstance(kind, cst.SimpleString) and kind.evaluated_value in ("", "ZLIB", "GZIP"):
        return source(kind)
    raise Unsupported("its compression type `%s` is not a TFRecordCompressionType member or a literal "
                      "\"ZLIB\"/\"GZIP\"" % source(kind))


class FixedLengthRecordReader(_Reader):
    """`FixedLengthRecordReader` + `read()` becomes `tf.data.FixedLengthRecordDataset`.

    ## Why
    Same records, no reader queue.

    ## Fix safety
    Safe: `record_bytes`, `header_bytes` and `footer_bytes` carry over unchanged.

    ## Limitations
    `hop_bytes` and `encoding` have no 1.8 dataset counterpart and are not rewritten.
    """

    code = "QM202"
    names = ("tensorflow.FixedLengthRecordReader",)
    signature = ("record_bytes", "header_bytes", "footer_bytes", "hop_bytes", "name", "encoding")
    message = "FixedLengthRecordReader reads from a queue"
    kind = "fixed_length"
    examples = (
        Example(
            before=example_source("""
            from tensorflow.python.ops import io_ops
            import tensorflow as tf

            def inputs(files):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = io_ops.FixedLengthRecordReader(record_bytes=8, header_bytes=4)
                _, record = reader.read(queue)
                value = tf.decode_raw(record, tf.int32)
                return tf.train.batch([value], batch_size=4)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                def parse_record(record):
                    value = tf.decode_raw(record, tf.int32)
                    return value

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=8, header_bytes=4))
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(4))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve):
        for unsupported in ("hop_bytes", "encoding"):
            if not is_none(args.get(unsupported)):
                raise Unsupported("it sets `%s`, which FixedLengthRecordDataset lacks in TF 1.8" % unsupported)
        if "record_bytes" not in args:
            raise Unsupported("it has no record_bytes argument")
        kept = tuple(
            (name, source(args[name]))
            for name in ("record_bytes", "header_bytes", "footer_bytes")
            if not is_none(args.get(name))
        )
        return RecordReader(cls.kind, kept)


class TextLineReader(_Reader):
    """`TextLineReader` + `read()` becomes `tf.data.TextLineDataset`, skipping header lines per file.

    ## Why
    Same lines, no reader queue.

    ## Fix safety
    Safe: `skip_header_lines=n` becomes `.skip(n)` on each file's dataset, as the reader skipped
    the header of every file.

    ## Limitations
    A read whose key (`file:line`) is used is not rewritten.
    """

    code = "QM203"
    names = ("tensorflow.TextLineReader",)
    signature = ("skip_header_lines", "name")
    message = "TextLineReader reads from a queue"
    kind = "text_line"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow import train as T
            from tensorflow.python.ops.io_ops import TextLineReader

            def inputs(files):
                queue = T.string_input_producer(files, shuffle=False)
                reader = TextLineReader(skip_header_lines=2)
                _, line = reader.read(queue)
                return T.batch([line], batch_size=16)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(2))
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(16))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )

    @classmethod
    def model(cls, args, source, resolve):
        skip = args.get("skip_header_lines")
        keep = not is_none(skip) and not (isinstance(skip, cst.Integer) and skip.value == "0")
        return RecordReader(cls.kind, skip_lines=source(skip) if keep else None)


class WholeFileReader(_Reader):
    """`WholeFileReader` + `read()` becomes a map of `tf.read_file` over the file names.

    ## Why
    One record per file: the dataset of file names already is the record stream.

    ## Fix safety
    Safe: the key (the file name) stays available to the per-record code.

    ## Limitations
    None known.
    """

    code = "QM204"
    names = ("tensorflow.WholeFileReader",)
    signature = ("name",)
    message = "WholeFileReader reads from a queue"
    kind = "whole_file"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow import WholeFileReader as Files

            def inputs(files):
                queue = tf.train.string_input_producer(files, shuffle=False)
                reader = Files()
                name, data = reader.read(queue)
                image = tf.image.decode_jpeg(data)
                image = tf.image.resize_images(image, [64, 64])
                return tf.train.batch([image, name], batch_size=8)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                def parse_record(name, data):
                    image = tf.image.decode_jpeg(data)
                    image = tf.image.resize_images(image, [64, 64])
                    return image, name

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.map(lambda filename: (filename, tf.read_file(filename)))
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return list(dataset.make_one_shot_iterator().get_next())
            """),
        ),
    )
