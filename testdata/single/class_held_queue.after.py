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
        epochs = None if training else 1
        self.name_queue = tf.data.Dataset.from_tensor_slices(csv_files)
        if training:
            self.name_queue = self.name_queue.shuffle(tf.size(csv_files, out_type=tf.int64), seed=3)
        self.name_queue = self.name_queue.repeat(epochs)
        self.training = training
        self.threads = threads
        self.buffer_size = buffer_size

    def _pair(self, line):
        fields = tf.decode_csv(line, [[''], [''], [''], [''], ['']])
        key = tf.string_join([fields[0], fields[4]], separator='|')
        return key, fields[1]

    def batches(self, batch_size):
        def parse_record(line):
            key, width = self._pair(line)
            return key, width

        dataset = self.name_queue
        dataset = dataset.flat_map(tf.data.TextLineDataset)
        dataset = dataset.map(parse_record, num_parallel_calls=self.threads)
        if self.training:
            dataset = dataset.shuffle(self.buffer_size or self.buffer_size + 3 * batch_size)
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
            dataset = dataset.prefetch(1)
            keys, widths = dataset.make_one_shot_iterator().get_next()
        else:
            dataset = dataset.batch(batch_size)
            dataset = dataset.prefetch(1)
            keys, widths = dataset.make_one_shot_iterator().get_next()
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
        self.name_queue = tf.data.Dataset.from_tensor_slices(csv_files)
        self.name_queue = self.name_queue.repeat(epochs)

    def _field(self, line):
        return tf.decode_csv(line, [[''], [''], [''], [''], ['']])[0]

    def fields(self, batch_size, batched):
        def parse_record_2(line):
            field = self._field(line)
            return field

        dataset_2 = self.name_queue
        dataset_2 = dataset_2.flat_map(tf.data.TextLineDataset)
        dataset_2 = dataset_2.map(parse_record_2)
        if batched:
            dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
            dataset_2 = dataset_2.prefetch(1)
            field = dataset_2.make_one_shot_iterator().get_next()
        else:
            field = dataset_2.make_one_shot_iterator().get_next()
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
