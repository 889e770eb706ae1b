"""Iris-style CSV files with a header line, read with `from tensorflow import train`."""
import tensorflow as tf

CSV_COLUMNS = ['sepal_length', 'sepal_width', 'petal_length', 'petal_width', 'species']
DEFAULTS = [[0.0], [0.0], [0.0], [0.0], [0]]


def csv_inputs(csv_files, batch_size, num_epochs=1, seed=None):
    def parse_record(line):
        columns = tf.decode_csv(line, record_defaults=DEFAULTS)
        features = tf.stack(columns[:4])
        species = columns[4]
        return features, species

    # positional capacity, min_after_dequeue
    dataset = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset = dataset.shuffle(tf.size(csv_files, out_type=tf.int64), seed=seed)
    dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(100, num_epochs, seed=seed))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    feature_batch, label_batch = dataset.make_one_shot_iterator().get_next()
    return feature_batch, label_batch
