"""A loop of readers fills a hand-built shuffling queue, dequeued once; a batch_join's threads
each parse that one dequeued record (a loop copying the parsing code): each thread's run
dequeued its own record, so the copies become one map function run n at a time (copies that
read the loop's variable: thread_copies). A loop whose copies carry a value from one to the
next stays, with the reason."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def joined_batches(files, batch_size, num_readers=2, num_threads=4, num_epochs=None):
    with tf.name_scope('joined_inputs'):
        if num_threads % 2:
            raise ValueError('num_threads must be even')

        # Serialized records of every reader are mixed before any is parsed.
        mixing = 20
        def parse_record(value):
            serialized = value
            parsed = tf.parse_single_example(serialized, _FEATURES)

            # Each thread scales its own copy.
            x = parsed['x'] * 2.0
            x.set_shape([3])
            return x, parsed['id']

        dataset = tf.data.Dataset.from_tensor_slices(files)
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
        dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=num_readers)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(mixing or mixing + 3 * batch_size, num_epochs))
        dataset = dataset.map(parse_record, num_parallel_calls=num_threads)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        xs, ids = dataset.make_one_shot_iterator().get_next()
        xs = tf.reshape(xs, [batch_size, 3])
        return xs, tf.reshape(ids, [batch_size])


def read_once_then_join(files, batch_size):
    def parse_record_2(value):
        parsed = tf.parse_single_example(value, _FEATURES)
        return {'x': parsed['x'], 'id': parsed['id']}

    # The one read is run again by each of the join's threads.
    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=3)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()


def decoded_in_append(files, batch_size):
    def parse_record_3(value):
        return tf.parse_single_example(value, _FEATURES)['id']

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3, num_parallel_calls=2)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    return dataset_3.make_one_shot_iterator().get_next()


def numbered_threads(files, batch_size):
    def parse_record_4(value, thread):
        parsed = tf.parse_single_example(value, _FEATURES)
        return parsed['x'] + tf.to_float(thread), parsed['id']

    dataset_4 = tf.data.Dataset.from_tensor_slices(files)
    dataset_4 = dataset_4.shuffle(tf.size(files, out_type=tf.int64))
    dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
    dataset_4 = tf.data.Dataset.zip((tf.data.Dataset.range(2).repeat(), dataset_4))

    def parse_record_4_of_thread(copy, value):
        # Each of the join's threads ran its own copy of the per-record code (`thread` told them
        # apart) on the records it took: record i goes through copy i % 2.
        return tf.case([(tf.equal(copy, thread),
                          lambda thread=thread: parse_record_4(value, thread))
                         for thread in range(2)])

    dataset_4 = dataset_4.map(parse_record_4_of_thread, num_parallel_calls=2)
    dataset_4 = dataset_4.repeat(1)
    dataset_4 = dataset_4.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_4 = dataset_4.prefetch(1)
    return list(dataset_4.make_one_shot_iterator().get_next())


def carried_offset(files, batch_size):
    file_queue = tf.train.string_input_producer(files, num_epochs=1)
    _, value = tf.TFRecordReader().read(file_queue)
    offset = tf.constant(0.0)
    rows = []
    for _ in range(2):
        parsed = tf.parse_single_example(value, _FEATURES)
        offset = offset + 1.0
        rows.append([parsed['x'] + offset, parsed['id']])
    return tf.train.batch_join(rows, batch_size=batch_size)
