"""Variable-length CSV lines as byte sequences, padded to the longest in each batch (dynamic_pad)."""
import tensorflow as tf


def char_batches(csv_files, batch_size):
    def parse_record(line):
        chars = tf.string_split([line], delimiter="").values
        first_field = tf.string_split([line], delimiter=",").values[:1]
        return chars, first_field

    dataset = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.padded_batch(batch_size, dataset.output_shapes)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
