"""Slices of decode_csv's list batched as they are: the queue packed each slice, a Python list of
scalar tensors, into one tensor (the features [4], the species [1]); the map function packs them
too, as TF 1.8's map returns no list inside its element."""
import tensorflow as tf

DEFAULTS = [[0.0], [0.0], [0.0], [0.0], [0]]


def sliced_inputs(csv_files, batch_size):
    def parse_record(line):
        columns = tf.decode_csv(line, record_defaults=DEFAULTS)
        return tf.convert_to_tensor(columns[0:-1]), tf.convert_to_tensor(columns[-1:])

    dataset = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def sliced_tensor_inputs(csv_files, batch_size):
    """A slice of a tensor is a tensor: returned as it is."""
    def parse_record_2(line):
        row = tf.stack(tf.decode_csv(line, record_defaults=DEFAULTS[:4] + [[0.0]]))
        return row[:4], row[4:]

    dataset_2 = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset_2 = dataset_2.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())
