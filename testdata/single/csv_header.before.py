"""Iris-style CSV files with a header line, read with `from tensorflow import train`."""
import tensorflow as tf
from tensorflow import train

CSV_COLUMNS = ['sepal_length', 'sepal_width', 'petal_length', 'petal_width', 'species']
DEFAULTS = [[0.0], [0.0], [0.0], [0.0], [0]]


def csv_inputs(csv_files, batch_size, num_epochs=1, seed=None):
    file_queue = train.string_input_producer(csv_files, num_epochs=num_epochs, seed=seed)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(file_queue)
    columns = tf.decode_csv(line, record_defaults=DEFAULTS)
    features = tf.stack(columns[:4])
    species = columns[4]
    feature_batch, label_batch = train.shuffle_batch(
        [features, species], batch_size, 500, 100, seed=seed)  # positional capacity, min_after_dequeue
    return feature_batch, label_batch
