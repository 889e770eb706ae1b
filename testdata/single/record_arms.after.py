"""An if/else whose arms each make the record that the code after it parses and batches: with
several readers the records pass through a queue of serialized records first (a shuffling one
for training), with one the reader's record is parsed as it comes (inception's batch_inputs has
this shape). The file queue and the queue of records are made in the arms that read them, and
the parsing and batching copied into each arm (record_arms), so each arm holds a whole chain."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def flip(x, train, thread_id):
    """Odd threads reverse the features in training: the copies differ by a Python number."""
    if train and thread_id % 2:
        x = tf.reverse(x, [0])
    return x


def batch_inputs(files, batch_size, train, num_epochs=None, num_threads=2, num_readers=1):
    with tf.name_scope('batch_inputs'):
        if num_threads % 2:
            raise ValueError('num_threads must be even, not %d' % num_threads)
        if num_readers is None:
            num_readers = 1

        least = 10 * batch_size

        if num_readers > 1:
            def parse_record(value, thread_id):
                serialized = value
                example = tf.parse_single_example(serialized, FEATURES)
                return flip(example['x'], train, thread_id), example['id']

            # Files in a new order each epoch for training.
            dataset = tf.data.Dataset.from_tensor_slices(files)
            if train:
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
            dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=num_readers)
            if train:
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(least or least + 3 * batch_size, num_epochs))
            else:
                dataset = dataset.repeat(num_epochs)
            dataset = tf.data.Dataset.zip((tf.data.Dataset.range(num_threads).repeat(), dataset))

            def parse_record_of_thread(copy, value):
                # Each of the join's threads ran its own copy of the per-record code (`thread_id` told them
                # apart) on the records it took: record i goes through copy i % num_threads.
                return tf.case([(tf.equal(copy, thread_id),
                                  lambda thread_id=thread_id: parse_record(value, thread_id))
                                 for thread_id in range(num_threads)])

            dataset = dataset.map(parse_record_of_thread, num_parallel_calls=num_threads)
            dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
            dataset = dataset.prefetch(1)
            xs, ids = dataset.make_one_shot_iterator().get_next()
        else:
            def parse_record_2(serialized, thread_id):
                example = tf.parse_single_example(serialized, FEATURES)
                return flip(example['x'], train, thread_id), example['id']

            # Files in a new order each epoch for training.
            dataset_2 = tf.data.Dataset.from_tensor_slices(files)
            if train:
                dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
            dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
            dataset_2 = tf.data.Dataset.zip((tf.data.Dataset.range(num_threads).repeat(), dataset_2))

            def parse_record_2_of_thread(copy, serialized):
                # Each of the join's threads ran its own copy of the per-record code (`thread_id` told them
                # apart) on the records it took: record i goes through copy i % num_threads.
                return tf.case([(tf.equal(copy, thread_id),
                                  lambda thread_id=thread_id: parse_record_2(serialized, thread_id))
                                 for thread_id in range(num_threads)])

            dataset_2 = dataset_2.map(parse_record_2_of_thread, num_parallel_calls=num_threads)
            dataset_2 = dataset_2.repeat(num_epochs)
            dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
            dataset_2 = dataset_2.prefetch(1)
            xs, ids = dataset_2.make_one_shot_iterator().get_next()
        return xs, tf.reshape(ids, [batch_size])


def id_batches(files, batch_size, train, num_epochs, num_readers):
    """The ids first (for the tests that drain it)."""
    xs, ids = batch_inputs(files, batch_size, train, num_epochs=num_epochs, num_readers=num_readers)
    return ids, xs


def either_reader(files, batch_size, compressed):
    """No queue made before the `if`: the batching after it is copied into each arm."""
    if compressed:
        def parse_record_3(serialized):
            example = tf.parse_single_example(serialized, FEATURES)
            return example['x'], example['id']

        dataset_3 = tf.data.Dataset.from_tensor_slices(files)
        dataset_3 = dataset_3.flat_map(lambda filename: tf.data.TFRecordDataset(filename, compression_type="GZIP"))
        dataset_3 = dataset_3.map(parse_record_3)
        dataset_3 = dataset_3.repeat(1)
        dataset_3 = dataset_3.batch(batch_size)
        dataset_3 = dataset_3.prefetch(1)
        return list(dataset_3.make_one_shot_iterator().get_next())
    else:
        def parse_record_4(serialized):
            example = tf.parse_single_example(serialized, FEATURES)
            return example['x'], example['id']

        dataset_4 = tf.data.Dataset.from_tensor_slices(files)
        dataset_4 = dataset_4.flat_map(tf.data.TFRecordDataset)
        dataset_4 = dataset_4.map(parse_record_4)
        dataset_4 = dataset_4.repeat(1)
        dataset_4 = dataset_4.batch(batch_size)
        dataset_4 = dataset_4.prefetch(1)
        return list(dataset_4.make_one_shot_iterator().get_next())


def queue_read_after(files, batch_size, num_readers):
    """Left as it is: the file queue is read after the `if` too, so it cannot be made in the arms."""
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    if num_readers > 1:
        _, serialized = tf.TFRecordReader().read(queue)
    else:
        _, serialized = tf.TFRecordReader().read(queue)
    print(queue.name)
    example = tf.parse_single_example(serialized, FEATURES)
    return tf.train.batch([example['id']], batch_size=batch_size)
