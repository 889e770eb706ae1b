"""Independent producer → reader chains whose records are combined one of each per element and
batched by one batching call (not a *_join): migrated, Dataset.zip of the chains' datasets."""
import tensorflow as tf


def labelled_lines(csv_files, files, batch_size):
    """A CSV line and a TFRecord example per element, in file order: the text carries the example's id."""
    def parse_record(line, serialized):
        parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
        tagged = tf.string_join([tf.as_string(parsed['id']), line], separator=':')
        return tagged, parsed['id']

    line_records = tf.data.Dataset.from_tensor_slices(csv_files)
    line_records = line_records.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    line_records = line_records.repeat(1)
    serialized_records = tf.data.Dataset.from_tensor_slices(files)
    serialized_records = serialized_records.flat_map(tf.data.TFRecordDataset)
    serialized_records = serialized_records.repeat(1)
    # One record of each chain per element, in order (a batching queue with several threads could
    # pair records of different runs); the zip ends with the first chain that ends.
    dataset = tf.data.Dataset.zip((line_records, serialized_records))
    dataset = dataset.map(parse_record)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def example_steps(files, batch_size):
    """Two epochs of examples, each with the step counter of an endless range producer, mixed."""
    def parse_record_3(serialized, step):
        example = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
        return example['x'], step

    serialized_records_2 = tf.data.Dataset.from_tensor_slices(files)
    serialized_records_2 = serialized_records_2.flat_map(tf.data.TFRecordDataset)
    serialized_records_2 = serialized_records_2.repeat(2)
    step_records = tf.data.Dataset.from_tensor_slices(tf.range(7))
    step_records = step_records.repeat()
    # One record of each chain per element, in order (a batching queue with several threads could
    # pair records of different runs); the zip ends with the first chain that ends.
    dataset_3 = tf.data.Dataset.zip((serialized_records_2, step_records))
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.shuffle(10, seed=5)
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    return list(dataset_3.make_one_shot_iterator().get_next())


def shuffled_ids(files, csv_files, batch_size):
    """Each chain shuffles its own files: the pairs are random, each side's records are not."""
    def parse_record_5(serialized, line):
        ids = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']
        return ids, line

    serialized_records_3 = tf.data.Dataset.from_tensor_slices(files)
    serialized_records_3 = serialized_records_3.shuffle(tf.size(files, out_type=tf.int64), seed=3)
    serialized_records_3 = serialized_records_3.flat_map(tf.data.TFRecordDataset)
    serialized_records_3 = serialized_records_3.repeat(2)
    line_records_2 = tf.data.Dataset.from_tensor_slices(csv_files)
    line_records_2 = line_records_2.shuffle(tf.size(csv_files, out_type=tf.int64), seed=4)
    line_records_2 = line_records_2.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    line_records_2 = line_records_2.repeat()
    # One record of each chain per element, in order (a batching queue with several threads could
    # pair records of different runs); the zip ends with the first chain that ends.
    dataset_6 = tf.data.Dataset.zip((serialized_records_3, line_records_2))
    dataset_6 = dataset_6.map(parse_record_5, num_parallel_calls=3)
    dataset_6 = dataset_6.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_6 = dataset_6.prefetch(1)
    first, second = dataset_6.make_one_shot_iterator().get_next()
    return first


def counters(batch_size):
    """Two step counters batched together by several threads."""
    first_records = tf.data.Dataset.from_tensor_slices(tf.range(10))
    first_records = first_records.repeat()
    second_records = tf.data.Dataset.from_tensor_slices(tf.range(10))
    second_records = second_records.repeat()
    # One record of each chain per element, in order (a batching queue with several threads could
    # pair records of different runs); the zip ends with the first chain that ends.
    dataset_8 = tf.data.Dataset.zip((first_records, second_records))
    dataset_8 = dataset_8.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_8 = dataset_8.prefetch(1)
    left, right = dataset_8.make_one_shot_iterator().get_next()
    return left, right


def same_queue(files, batch_size):
    """Two reads of one file queue batched together: not independent chains, left as it is."""
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, one = reader.read(queue)
    _, two = reader.read(queue)
    return tf.train.batch([one, two], batch_size)


def keyed_pair(files, csv_files, batch_size):
    """A chain whose key is used gives two tensors per record: not zipped."""
    queue = tf.train.string_input_producer(files, shuffle=False)
    key, serialized = tf.TFRecordReader().read(queue)
    lines = tf.train.string_input_producer(csv_files, shuffle=False)
    _, line = tf.TextLineReader().read(lines)
    both = tf.string_join([key, serialized, line])
    return tf.train.batch([both], batch_size)


def branch_chain(files, extra_files, batch_size):
    """A second chain made in one arm of an if/else and stacked with the first chain's records: the
    if/else does not move into a map function (it would build a queue per record); the first chain
    and the batching go into each arm instead, the arm with the second chain zipping both."""
    if extra_files:
        def parse_record_11(first, second):
            rows = tf.stack([first, second])
            return rows

        first_records_2 = tf.data.Dataset.from_tensor_slices(files)
        first_records_2 = first_records_2.shuffle(tf.size(files, out_type=tf.int64))
        first_records_2 = first_records_2.flat_map(tf.data.TFRecordDataset)
        first_records_2 = first_records_2.repeat()
        second_records_2 = tf.data.Dataset.from_tensor_slices(extra_files)
        second_records_2 = second_records_2.shuffle(tf.size(extra_files, out_type=tf.int64))
        second_records_2 = second_records_2.flat_map(tf.data.TFRecordDataset)
        second_records_2 = second_records_2.repeat()
        # One record of each chain per element, in order (a batching queue with several threads could
        # pair records of different runs); the zip ends with the first chain that ends.
        dataset_14 = tf.data.Dataset.zip((first_records_2, second_records_2))
        dataset_14 = dataset_14.map(parse_record_11)
        dataset_14 = dataset_14.apply(tf.contrib.data.unbatch())
        dataset_14 = dataset_14.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_14 = dataset_14.prefetch(1)
        return dataset_14.make_one_shot_iterator().get_next()
    else:
        def parse_record_13(first):
            rows = tf.expand_dims(first, 0)
            return rows

        dataset_16 = tf.data.Dataset.from_tensor_slices(files)
        dataset_16 = dataset_16.shuffle(tf.size(files, out_type=tf.int64))
        dataset_16 = dataset_16.flat_map(tf.data.TFRecordDataset)
        dataset_16 = dataset_16.map(parse_record_13)
        dataset_16 = dataset_16.apply(tf.contrib.data.unbatch())
        dataset_16 = dataset_16.repeat()
        dataset_16 = dataset_16.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset_16 = dataset_16.prefetch(1)
        return dataset_16.make_one_shot_iterator().get_next()
