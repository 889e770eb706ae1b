"""Iris-style CSV files read by a class: `_read` hands its queue on to `_read_row`, which reads it."""
import tensorflow as tf

DEFAULTS = [[0.0], [0.0], [0.0], [0.0], [0]]


class IrisRows(object):
    """Rows of the CSV files, batched."""

    def __init__(self, scale):
        self._scale = scale

    def _read_row(self, line):
        """One line of the files, parsed.

        Args:
            line: one record read from the files, a scalar string Tensor.
        """
        columns = tf.decode_csv(line, record_defaults=DEFAULTS)
        return tf.stack(columns[:4]), columns[4]

    def _read(self, line):
        features, species = self._read_row(
            line)  # one line per example
        return features * self._scale, species

    def batches(self, csv_files, batch_size, num_epochs=1):
        def parse_record(line):
            features, species = self._read(line)
            return features, species

        dataset = tf.data.Dataset.from_tensor_slices(csv_files)
        dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
        dataset = dataset.map(parse_record)
        dataset = dataset.repeat(num_epochs)
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        return list(dataset.make_one_shot_iterator().get_next())


def iris_batches(csv_files, batch_size):
    return IrisRows(2.0).batches(csv_files, batch_size)
