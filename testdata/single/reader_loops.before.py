"""Lists for batch_join built by a loop: one reader per iteration on the same file queue, the
per-record code written in the loop, each iteration appending its record's tensors."""
import tensorflow as tf


def parse_row(line):
    columns = tf.decode_csv(line, record_defaults=[[0], [0.0], [0.0], [0.0], [0]])
    return [columns[0], tf.stack(columns[1:4])]


def looped_rows(csv_files, batch_size, num_readers=3):
    queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    rows = []
    for _ in range(num_readers):
        reader = tf.TextLineReader(skip_header_lines=1)
        _, line = reader.read(queue)
        example_id, features = parse_row(line)
        label = tf.mod(example_id, 3)
        rows.append([example_id, features, label])
    ids, features, labels = tf.train.batch_join(rows, batch_size=batch_size, allow_smaller_final_batch=True)
    return ids, features, labels


def shuffled_records(files, batch_size, readers=2):
    """A dict per record, from an inline reader, shuffled."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    examples = []
    for i in range(readers):
        _, serialized = tf.TFRecordReader().read(filename_queue)
        parsed = tf.parse_single_example(serialized, {
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64),
        })
        examples.append({'x': parsed['x'], 'id': parsed['id']})
    return tf.train.shuffle_batch_join(examples, batch_size, capacity=60, min_after_dequeue=20,
                                       allow_smaller_final_batch=True)


def parsed_by_helper(csv_files, batch_size):
    queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    rows = []
    for _ in range(2):
        reader = tf.TextLineReader(skip_header_lines=1)
        _, line = reader.read(queue)
        rows.append(parse_row(line))
    return tf.train.batch_join(rows, batch_size, allow_smaller_final_batch=True)


def last_reader_used_after(csv_files, batch_size):
    """The last reader's line is also used after the loop: left as it is."""
    queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    rows = []
    for _ in range(2):
        reader = tf.TextLineReader(skip_header_lines=1)
        _, line = reader.read(queue)
        rows.append([line])
    tf.summary.text('last_line', line)
    return tf.train.batch_join(rows, batch_size)
