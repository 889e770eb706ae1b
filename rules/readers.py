"""Readers: how a file becomes records (`reader.read(filename_queue)`)."""
import libcst as cst

from qmigrate.model import RecordReader
from qmigrate.rules.base import Rule, SourceOf, Unsupported, is_none


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
    Safe: the same records in the same order within each file.

    ## Limitations
    `options=` (compressed files) is not rewritten yet; a read whose key is used is not rewritten.
    """

    code = "QM201"
    names = ("tensorflow.TFRecordReader",)
    signature = ("name", "options")
    message = "TFRecordReader reads from a queue"
    kind = "tfrecord"

    @classmethod
    def model(cls, args, source, resolve):
        if not is_none(args.get("options")):
            raise Unsupported("it sets `options=` (compression), which qmigrate does not translate yet")
        return RecordReader(cls.kind)


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
