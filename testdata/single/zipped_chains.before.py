"""Independent producer → reader chains whose records are combined one of each per element and
batched by one batching call (not a *_join): migrated, Dataset.zip of the chains' datasets."""
import tensorflow as tf


def labelled_lines(csv_files, files, batch_size):
    """A CSV line and a TFRecord example per element, in file order: the text carries the example's id."""
    line_queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    line_reader = tf.TextLineReader(skip_header_lines=1)
    _, line = line_reader.read(line_queue)
    record_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    record_reader = tf.TFRecordReader()
    _, serialized = record_reader.read(record_queue)
    parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
    tagged = tf.string_join([tf.as_string(parsed['id']), line], separator=':')
    return tf.train.batch([tagged, parsed['id']], batch_size=batch_size, num_threads=1,
                          allow_smaller_final_batch=True)


def example_steps(files, batch_size):
    """Two epochs of examples, each with the step counter of an endless range producer, mixed."""
    queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    _, serialized = tf.TFRecordReader().read(queue)
    example = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
    step = tf.train.range_input_producer(7, shuffle=False).dequeue()
    return tf.train.shuffle_batch([example['x'], step], batch_size=batch_size, capacity=40,
                                  min_after_dequeue=10, num_threads=1, seed=5)


def shuffled_ids(files, csv_files, batch_size):
    """Each chain shuffles its own files: the pairs are random, each side's records are not."""
    records = tf.train.string_input_producer(files, num_epochs=2, seed=3)
    _, serialized = tf.TFRecordReader().read(records)
    ids = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']
    lines = tf.train.string_input_producer(csv_files, seed=4)
    _, line = tf.TextLineReader(skip_header_lines=1).read(lines)
    first, second = tf.train.batch([ids, line], batch_size=batch_size, num_threads=3)
    return first


def counters(batch_size):
    """Two step counters batched together by several threads."""
    first = tf.train.range_input_producer(10, shuffle=False).dequeue()
    second = tf.train.range_input_producer(10, shuffle=False).dequeue()
    left, right = tf.train.batch([first, second], num_threads=4, batch_size=batch_size, capacity=20)
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
    queue = tf.train.string_input_producer(files)
    _, first = tf.TFRecordReader().read(queue)
    if extra_files:
        extra_queue = tf.train.string_input_producer(extra_files)
        _, second = tf.TFRecordReader().read(extra_queue)
        rows = tf.stack([first, second])
    else:
        rows = tf.expand_dims(first, 0)
    return tf.train.batch([rows], batch_size=batch_size, enqueue_many=True)
