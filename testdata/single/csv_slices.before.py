"""Slices of decode_csv's list batched as they are: the queue packed each slice, a Python list of
scalar tensors, into one tensor (the features [4], the species [1]); the map function packs them
too, as TF 1.8's map returns no list inside its element."""
import tensorflow as tf

DEFAULTS = [[0.0], [0.0], [0.0], [0.0], [0]]


def sliced_inputs(csv_files, batch_size):
    file_queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader(skip_header_lines=1).read(file_queue)
    columns = tf.decode_csv(line, record_defaults=DEFAULTS)
    return tf.train.batch([columns[0:-1], columns[-1:]], batch_size, allow_smaller_final_batch=True)


def sliced_tensor_inputs(csv_files, batch_size):
    """A slice of a tensor is a tensor: returned as it is."""
    file_queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader(skip_header_lines=1).read(file_queue)
    row = tf.stack(tf.decode_csv(line, record_defaults=DEFAULTS[:4] + [[0.0]]))
    return tf.train.batch([row[:4], row[4:]], batch_size, allow_smaller_final_batch=True)
