"""The reader's key kept: TFRecord keys (`<file>:<byte offset>`) rebuilt from each record's offset,
chunks read with read_up_to from compressed files whose options are named a line above, and a
batch in each arm of an if/else after statements of its own (one dataset, a tail per arm)."""
import tensorflow as tf

_SCHEMA = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def keyed_chunks(patterns, batch_size, epochs, shuffle):
    epochs = epochs or None

    dataset = tf.data.Dataset.from_tensor_slices(patterns)
    if shuffle:
        dataset = dataset.shuffle(tf.size(patterns, out_type=tf.int64))

    def keyed_records(filename):
        # TFRecordReader's key: the file name and the record's byte offset (its length + 16 bytes a record).
        records = tf.data.TFRecordDataset(filename, compression_type="GZIP")
        return records.apply(tf.contrib.data.scan(tf.constant(0, tf.int64), lambda offset, record: (
            offset + tf.size(tf.decode_raw(record, tf.uint8), out_type=tf.int64) + 16,
            (tf.string_join([filename, tf.as_string(offset)], ':'), record))))

    dataset = dataset.flat_map(lambda filename: keyed_records(filename).batch(batch_size))
    dataset = dataset.apply(tf.contrib.data.unbatch())

    if shuffle:
        # Keep a few batches mixed.
        keep = 4 * batch_size
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(keep or keep + 2 * batch_size, epochs))
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        return list(dataset.make_one_shot_iterator().get_next())
    else:
        dataset = dataset.repeat(epochs)
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        return list(dataset.make_one_shot_iterator().get_next())


def keyed_examples(files, batch_size, training):
    def parse_record(where, serialized):
        example = tf.parse_single_example(serialized, _SCHEMA)
        source = tf.string_split([where], ':').values[0]
        return {'id': example['id'], 'where': where, 'file': source}

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)

    def keyed_records_2(filename):
        # TFRecordReader's key: the file name and the record's byte offset (its length + 16 bytes a record).
        records = tf.data.TFRecordDataset(filename)
        return records.apply(tf.contrib.data.scan(tf.constant(0, tf.int64), lambda offset, record: (
            offset + tf.size(tf.decode_raw(record, tf.uint8), out_type=tf.int64) + 16,
            (tf.string_join([filename, tf.as_string(offset)], ':'), record))))

    dataset_2 = dataset_2.flat_map(keyed_records_2)
    dataset_2 = dataset_2.map(parse_record)
    if training:
        after = 10
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(after or after + 3 * batch_size, 1))
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        batch = dataset_2.make_one_shot_iterator().get_next()
    else:
        dataset_2 = dataset_2.repeat(1)
        dataset_2 = dataset_2.batch(batch_size)
        dataset_2 = dataset_2.prefetch(1)
        batch = dataset_2.make_one_shot_iterator().get_next()
    return batch


def arm_reads_record(files, batch_size, training):
    """Left alone: the arms batch different tensors, which one map function does not give both."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    example = tf.parse_single_example(serialized, _SCHEMA)
    if training:
        scaled = example['x'] * 2.0
        batch = tf.train.shuffle_batch([scaled], batch_size, capacity=30, min_after_dequeue=10)
    else:
        batch = tf.train.batch([example['x']], batch_size)
    return batch
