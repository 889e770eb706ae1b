"""Left alone, each with the construct its chain leaves the function at: a queue handed to a method,
records returned to unknown callers, tensors batched as parameters, tensors from an object's method,
a list filled in a loop from a queue that stays, a queue handed to an object's method. (rows() hands
its records down to batch_rows(), which is followed: batch_rows() stays for through_object(), and
rows() calls its migrated copy.)"""
import tensorflow as tf


def batch_rows(row, size, shuffle):
    if shuffle:
        return tf.train.shuffle_batch([row], size, capacity=3 * size, min_after_dequeue=size)
    return tf.train.batch([row], size)


def batch_with_length(row, size):
    return tf.train.batch([row, tf.size(row)], size)


def batch_logged(row, size):
    tf.summary.scalar('row_size', tf.size(row))
    return tf.train.batch([row], size)


class Source(object):
    def _decode(self, queue):
        reader = tf.TextLineReader()
        _, line = reader.read(queue)
        row = {'line': line}
        row['length'] = tf.size(tf.string_split([line], '').values)
        return row

    def rows(self, files, size, training):
        queue = tf.train.string_input_producer(files)
        row = self._decode(queue)
        return batch_rows(row['line'], size, shuffle=training)


def from_object(loader, files, size):
    features = loader.parse_all(files)
    return tf.train.batch([features.x, features.y], size)


def joined_from_queue(queue, threads, size):
    serialized = queue.dequeue()
    examples = []
    for _ in range(threads):
        parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([2], tf.float32)})
        examples.append([parsed['x']])
    return tf.train.batch_join(examples, size)


def through_object(loader, files, size):
    queue = tf.train.string_input_producer(files)
    example = loader.decode(queue)
    return batch_rows(example, size, shuffle=False)
