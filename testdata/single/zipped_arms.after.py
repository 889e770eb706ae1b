"""A chain made before an if/else whose arm makes a second chain, the records of either arm batched
by one call after the `if`: the head and the tail go into each arm, which then builds its own
dataset (Dataset.zip of the two chains where the arm makes the second one)."""
import tensorflow as tf


def read_id(serialized, offset=0):
    """The id of the example read, plus `offset`."""
    features = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
    return features['id'] + offset


def paired_rows(files, extra_files, batch_size):
    """Rows naming one example of each file list (both ways round), or of the first list alone."""

    if len(extra_files) != 0:
        def parse_record(serialized, serialized_2):
            first = read_id(serialized)
            second = read_id(serialized_2, offset=1000)
            rows = tf.stack([tf.stack([first, second]), tf.stack([second, first])])
            return rows

        # The rows of either arm, one at a time.
        serialized_records = tf.data.Dataset.from_tensor_slices(files)
        serialized_records = serialized_records.flat_map(tf.data.TFRecordDataset)
        serialized_records = serialized_records.repeat(1)
        serialized_2_records = tf.data.Dataset.from_tensor_slices(extra_files)
        serialized_2_records = serialized_2_records.flat_map(tf.data.TFRecordDataset)
        serialized_2_records = serialized_2_records.repeat(2)
        # One record of each chain per element, in order (a batching queue with several threads could
        # pair records of different runs); the zip ends with the first chain that ends.
        dataset = tf.data.Dataset.zip((serialized_records, serialized_2_records))
        dataset = dataset.map(parse_record)
        dataset = dataset.apply(tf.contrib.data.unbatch())
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        rows_batch = dataset.make_one_shot_iterator().get_next()
    else:
        def parse_record_3(serialized):
            first = read_id(serialized)
            # A batch of one row, as the other arm gives a batch of two.
            rows = tf.expand_dims(tf.stack([first, first]), 0)
            return rows

        # The rows of either arm, one at a time.
        dataset_3 = tf.data.Dataset.from_tensor_slices(files)
        dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
        dataset_3 = dataset_3.map(parse_record_3)
        dataset_3 = dataset_3.apply(tf.contrib.data.unbatch())
        dataset_3 = dataset_3.repeat(1)
        dataset_3 = dataset_3.batch(batch_size)
        dataset_3 = dataset_3.prefetch(1)
        rows_batch = dataset_3.make_one_shot_iterator().get_next()
    return rows_batch


def optional_lines(files, csv_files, batch_size):
    """Without an `else`, the path that makes no second chain would batch the records of the first
    alone after an `if` that did nothing: the first chain and the batching are left as they are."""
    queue = tf.train.string_input_producer(files)
    _, text = tf.TFRecordReader().read(queue)
    if csv_files:
        dataset_4 = tf.data.Dataset.from_tensor_slices(csv_files)
        dataset_4 = dataset_4.shuffle(tf.size(csv_files, out_type=tf.int64))
        dataset_4 = dataset_4.flat_map(tf.data.TextLineDataset)
        dataset_4 = dataset_4.repeat()
        line = dataset_4.make_one_shot_iterator().get_next()
        text = tf.string_join([text, line])
    return tf.train.batch([text], batch_size)


def chosen_lines(files, csv_files, batch_size, wanted):
    """A test that calls a function of the program would run before the first chain is made, no
    longer after it: the first chain and the batching are left as they are."""
    queue = tf.train.string_input_producer(files)
    _, text = tf.TFRecordReader().read(queue)
    if wanted(csv_files):
        dataset_5 = tf.data.Dataset.from_tensor_slices(csv_files)
        dataset_5 = dataset_5.shuffle(tf.size(csv_files, out_type=tf.int64))
        dataset_5 = dataset_5.flat_map(tf.data.TextLineDataset)
        dataset_5 = dataset_5.repeat()
        line = dataset_5.make_one_shot_iterator().get_next()
        text = tf.string_join([text, line])
    else:
        text = tf.identity(text)
    return tf.train.batch([text], batch_size)


WITH_LINES = True


def flagged_lines(files, csv_files, batch_size):
    """A test that reads a module's name, which the first chain's code could change before the
    `if` (as written) but not after it: the first chain and the batching are left as they are."""
    queue = tf.train.string_input_producer(files)
    _, text = tf.TFRecordReader().read(queue)
    if WITH_LINES:
        dataset_6 = tf.data.Dataset.from_tensor_slices(csv_files)
        dataset_6 = dataset_6.shuffle(tf.size(csv_files, out_type=tf.int64))
        dataset_6 = dataset_6.flat_map(tf.data.TextLineDataset)
        dataset_6 = dataset_6.repeat()
        line = dataset_6.make_one_shot_iterator().get_next()
        text = tf.string_join([text, line])
    else:
        text = tf.identity(text)
    return tf.train.batch([text], batch_size)


class PairLoader(object):
    """A reading method, called for each chain with its own flag."""

    def __init__(self, batch_size):
        self.batch_size = batch_size

    def read_example(self, serialized, shifted=False):
        features = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
        if shifted:
            return features['x'], features['x'] + 1.0
        return features['x']

    def load(self, files, extra_files):
        """The names the first read binds are bound again in the arms, stacked with the second
        chain's record or expanded alone: in the map function they are the first read's again."""
        if len(extra_files) != 0:
            def parse_record_4(serialized, serialized_3):
                x, moved = self.read_example(serialized, shifted=True)
                extra_x = self.read_example(serialized_3)
                x = tf.stack([x, extra_x])
                moved = tf.stack([moved, tf.zeros_like(extra_x)])
                return x, moved

            serialized_records_2 = tf.data.Dataset.from_tensor_slices(files)
            serialized_records_2 = serialized_records_2.shuffle(tf.size(files, out_type=tf.int64))
            serialized_records_2 = serialized_records_2.flat_map(tf.data.TFRecordDataset)
            serialized_records_2 = serialized_records_2.repeat()
            serialized_3_records = tf.data.Dataset.from_tensor_slices(extra_files)
            serialized_3_records = serialized_3_records.shuffle(tf.size(extra_files, out_type=tf.int64))
            serialized_3_records = serialized_3_records.flat_map(tf.data.TFRecordDataset)
            serialized_3_records = serialized_3_records.repeat()
            # One record of each chain per element, in order (a batching queue with several threads could
            # pair records of different runs); the zip ends with the first chain that ends.
            dataset_7 = tf.data.Dataset.zip((serialized_records_2, serialized_3_records))
            dataset_7 = dataset_7.map(parse_record_4)
            dataset_7 = dataset_7.apply(tf.contrib.data.unbatch())
            dataset_7 = dataset_7.shuffle(20)
            dataset_7 = dataset_7.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
            dataset_7 = dataset_7.prefetch(1)
            x_batch, moved_batch = dataset_7.make_one_shot_iterator().get_next()
        else:
            def parse_record_6(serialized):
                x, moved = self.read_example(serialized, shifted=True)
                x = tf.expand_dims(x, 0)
                moved = tf.expand_dims(moved, 0)
                return x, moved

            dataset_9 = tf.data.Dataset.from_tensor_slices(files)
            dataset_9 = dataset_9.shuffle(tf.size(files, out_type=tf.int64))
            dataset_9 = dataset_9.flat_map(tf.data.TFRecordDataset)
            dataset_9 = dataset_9.map(parse_record_6)
            dataset_9 = dataset_9.apply(tf.contrib.data.unbatch())
            dataset_9 = dataset_9.apply(tf.contrib.data.shuffle_and_repeat(20))
            dataset_9 = dataset_9.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
            dataset_9 = dataset_9.prefetch(1)
            x_batch, moved_batch = dataset_9.make_one_shot_iterator().get_next()
        return x_batch, moved_batch
