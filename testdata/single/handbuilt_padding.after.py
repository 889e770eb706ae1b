"""Variable-length CSV lines through a hand-built PaddingFIFOQueue: each batch is padded to its
longest line, as dynamic_pad=True would."""
import tensorflow as tf


def padded_lines(csv_files, batch_size):
    def parse_record(line):
        chars = tf.string_split([line], delimiter="").values
        first_field = tf.string_split([line], delimiter=",").values[:1]
        chars.set_shape([None])
        with tf.control_dependencies([tf.assert_equal(tf.shape(first_field), tf.constant([1], tf.int32))]):
            first_field = tf.identity(first_field)
        first_field.set_shape([1])
        return chars, first_field

    dataset = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, dataset.output_shapes))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
