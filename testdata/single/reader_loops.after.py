"""Lists for batch_join built by a loop: one reader per iteration on the same file queue, the
per-record code written in the loop, each iteration appending its record's tensors."""
import tensorflow as tf


def parse_row(line):
    columns = tf.decode_csv(line, record_defaults=[[0], [0.0], [0.0], [0.0], [0]])
    return [columns[0], tf.stack(columns[1:4])]


def looped_rows(csv_files, batch_size, num_readers=3):
    def parse_record(line):
        example_id, features = parse_row(line)
        label = tf.mod(example_id, 3)
        return example_id, features, label

    dataset = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset = dataset.interleave(lambda filename: tf.data.TextLineDataset(filename).skip(1), cycle_length=num_readers)
    dataset = dataset.map(parse_record, num_parallel_calls=num_readers)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    ids, features, labels = dataset.make_one_shot_iterator().get_next()
    return ids, features, labels


def shuffled_records(files, batch_size, readers=2):
    """A dict per record, from an inline reader, shuffled."""
    def parse_record_2(serialized):
        parsed = tf.parse_single_example(serialized, {
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64),
        })
        return {'x': parsed['x'], 'id': parsed['id']}

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=readers)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=readers)
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(20, 2))
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()


def parsed_by_helper(csv_files, batch_size):
    def parse_record_3(line):
        return tuple(parse_row(line))

    dataset_3 = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset_3 = dataset_3.interleave(lambda filename: tf.data.TextLineDataset(filename).skip(1), cycle_length=2)
    dataset_3 = dataset_3.map(parse_record_3, num_parallel_calls=2)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return list(dataset_3.make_one_shot_iterator().get_next())


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
