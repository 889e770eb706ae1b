"""A reader class that makes its reader and its file queue in __init__, from values only __init__
sees (its parameter `csv_files`, its local `epochs`), reads one line in one method and batches in
another, shuffled in one arm of an if/else and by a batch_join of that one reader in the other.
Migrated, the file names' dataset is built in __init__ (shuffled and repeated as the producer
was) and kept under the queue's attribute; the reading method takes the line; the batching method
continues the chain from that attribute. A second class reads a random tensor made as a default
argument in its per-record code (a fourth, batching only when asked, gives single lines otherwise,
its epochs those of the held dataset), a third batches twice from one object (two batch queues shared
the one reader's lines; two datasets would each read them all): both left as they are, with the
reason."""
import tensorflow as tf


class LinePairs(object):
    def __init__(self, csv_files, training=True, threads=2, buffer_size=20):
        # One reader for every file of the list.
        self.line_reader = tf.TextLineReader()
        epochs = None if training else 1
        self.name_queue = tf.train.string_input_producer(csv_files, num_epochs=epochs, shuffle=training, seed=3)
        self.training = training
        self.threads = threads
        self.buffer_size = buffer_size

    def _pair(self):
        _, line = self.line_reader.read(self.name_queue)
        fields = tf.decode_csv(line, [[''], [''], [''], [''], ['']])
        key = tf.string_join([fields[0], fields[4]], separator='|')
        return key, fields[1]

    def batches(self, batch_size):
        key, width = self._pair()
        if self.training:
            keys, widths = tf.train.shuffle_batch([key, width], batch_size=batch_size, num_threads=self.threads,
                                                  capacity=self.buffer_size + 3 * batch_size,
                                                  min_after_dequeue=self.buffer_size)
        else:
            keys, widths = tf.train.batch_join([(key, width)], batch_size=batch_size,
                                               allow_smaller_final_batch=True)
        return keys, widths


def pair_batches(csv_files, batch_size, training=False):
    return LinePairs(csv_files, training=training).batches(batch_size)


class JitteredLines(object):
    def __init__(self, csv_files, jitter=tf.random_uniform([], maxval=3, dtype=tf.int32)):
        self.line_reader = tf.TextLineReader()
        self.name_queue = tf.train.string_input_producer(csv_files)
        self.jitter = jitter

    def _line(self):
        _, line = self.line_reader.read(self.name_queue)
        return tf.substr(line, 0, 4)

    def jittered(self, batch_size):
        head = self._line()
        shifted = tf.substr(head, self.jitter, 1)
        return tf.train.batch([shifted], batch_size)


class OptionalBatches(object):
    def __init__(self, csv_files, epochs):
        self.line_reader = tf.TextLineReader()
        self.name_queue = tf.train.string_input_producer(csv_files, num_epochs=epochs, shuffle=False)

    def _field(self):
        _, line = self.line_reader.read(self.name_queue)
        return tf.decode_csv(line, [[''], [''], [''], [''], ['']])[0]

    def fields(self, batch_size, batched):
        field = self._field()
        if batched:
            field = tf.train.batch([field], batch_size)
        return field


class SharedLines(object):
    def __init__(self, csv_files):
        self.line_reader = tf.TextLineReader()
        self.name_queue = tf.train.string_input_producer(csv_files, shuffle=False)

    def _line(self):
        _, line = self.line_reader.read(self.name_queue)
        return tf.substr(line, 0, 2)

    def heads(self, batch_size):
        head = self._line()
        return tf.train.batch([head], batch_size)


def split_batches(csv_files):
    lines = SharedLines(csv_files)
    return lines.heads(4), lines.heads(6)
