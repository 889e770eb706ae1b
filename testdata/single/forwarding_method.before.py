"""Iris-style CSV files read by a class: `_read` hands its queue on to `_read_row`, which reads it."""
import tensorflow as tf

DEFAULTS = [[0.0], [0.0], [0.0], [0.0], [0]]


class IrisRows(object):
    """Rows of the CSV files, batched."""

    def __init__(self, scale):
        self._scale = scale

    def _read_row(self, csv_queue):
        """One line of the files, parsed.

        Args:
            csv_queue: a queue of CSV file names.
        """
        reader = tf.TextLineReader(skip_header_lines=1)
        _, line = reader.read(csv_queue)
        columns = tf.decode_csv(line, record_defaults=DEFAULTS)
        return tf.stack(columns[:4]), columns[4]

    def _read(self, filename_queue):
        features, species = self._read_row(
            filename_queue)  # one line per example
        return features * self._scale, species

    def batches(self, csv_files, batch_size, num_epochs=1):
        filename_queue = tf.train.string_input_producer(csv_files, num_epochs=num_epochs, shuffle=False)
        features, species = self._read(filename_queue)
        return tf.train.batch([features, species], batch_size=batch_size, allow_smaller_final_batch=True)


def iris_batches(csv_files, batch_size):
    return IrisRows(2.0).batches(csv_files, batch_size)
