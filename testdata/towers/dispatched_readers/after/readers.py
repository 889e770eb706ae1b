"""Readers of the example records, one class per layout; a flag names the one a run uses.
Each makes its own reader on the file-name queue it is handed: the chunked one reads up to
`chunk` records at a time and parses them together, the other one record at a time."""
import tensorflow as tf


def _scaled(x, scale):
  """The features, scaled (a function of the module the per-record code calls)."""
  return x * scale


class BaseReader(object):
  """Inherit from this class to read another layout."""

  def prepare_reader(self, unused_filename_queue):
    """Creates the reader's part of the graph."""
    raise NotImplementedError()


class ChunkedReader(BaseReader):
  """Reads chunks of records and parses them as one batch."""

  def __init__(self, scale=2.0):
    self.scale = scale

  def prepare_reader(self, serialized, chunk=8):
    """Reads and parses up to `chunk` records.

    Args:
      serialized: up to chunk records read from one file, a string Tensor of shape [None].
      chunk: how many records to read at a time.

    Returns:
      The examples' ids and features, each with a leading dimension of up to `chunk`.
    """

    tf.add_to_collection("chunked_records", serialized)
    return self.parse(serialized)

  def prepare_reader_records(self, filename, chunk=8):
    """The records prepare_reader() takes, read from the file `filename` as its reader read them
    (its callers read their files with this method where they made it a queue)."""
    return tf.data.TFRecordDataset(filename).batch(chunk)

  def parse(self, serialized):
    features = tf.parse_example(serialized, features={
        "id": tf.FixedLenFeature([], tf.int64),
        "x": tf.FixedLenFeature([3], tf.float32)})
    return features["id"], _scaled(features["x"], self.scale)


class SingleReader(BaseReader):
  """Reads one record at a time."""

  def __init__(self, scale=2.0):
    self.scale = scale

  def prepare_reader(self, serialized):
    features = tf.parse_single_example(serialized, features={
        "id": tf.FixedLenFeature([], tf.int64),
        "x": tf.FixedLenFeature([3], tf.float32)})
    # batched with enqueue_many: a batch of one
    return (tf.expand_dims(features["id"], 0),
            tf.expand_dims(_scaled(features["x"], self.scale), 0))

  def prepare_reader_records(self, filename):
    """The records prepare_reader() takes, read from the file `filename` as its reader read them
    (its callers read their files with this method where they made it a queue)."""
    return tf.data.TFRecordDataset(filename)
