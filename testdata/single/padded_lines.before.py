"""Variable-length CSV lines as byte sequences, padded to the longest in each batch (dynamic_pad)."""
import tensorflow as tf


def char_batches(csv_files, batch_size):
    queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(queue)
    chars = tf.string_split([line], delimiter="").values
    first_field = tf.string_split([line], delimiter=",").values[:1]
    return tf.train.batch([chars, first_field], batch_size=batch_size, dynamic_pad=True,
                          allow_smaller_final_batch=True)
