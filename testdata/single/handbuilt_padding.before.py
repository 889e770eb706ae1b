"""Variable-length CSV lines through a hand-built PaddingFIFOQueue: each batch is padded to its
longest line, as dynamic_pad=True would."""
import tensorflow as tf


def padded_lines(csv_files, batch_size):
    queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(queue)
    chars = tf.string_split([line], delimiter="").values
    first_field = tf.string_split([line], delimiter=",").values[:1]
    padding_queue = tf.PaddingFIFOQueue(capacity=50, dtypes=[tf.string, tf.string], shapes=[[None], [1]])
    enqueue = padding_queue.enqueue([chars, first_field])
    tf.train.add_queue_runner(tf.train.QueueRunner(padding_queue, [enqueue]))
    return padding_queue.dequeue_many(batch_size)
