"""A batch_join's threads each run their own copy of the per-record code, told apart by the
loop's variable (as inception's preprocessing picks a resize method and a colour order by
thread). Migrated, record i goes through copy i % n: the map function chooses the copy with
tf.case, and only the chosen one runs."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def distort(x, thread_id):
    """Even threads reverse the features: the copies differ by a Python number."""
    if thread_id % 2 == 0:
        x = tf.reverse(x, [0])
    return x * 2.0


def tagged_batches(files, batch_size, num_threads=3, num_epochs=1):
    def parse_record(serialized, thread_id):
        parsed = tf.parse_single_example(serialized, FEATURES)
        # which copy took the record, beside its id
        tagged = tf.to_float(parsed['id']) + 1000.0 * thread_id
        return tagged, distort(parsed['x'], thread_id), parsed['id']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = tf.data.Dataset.zip((tf.data.Dataset.range(num_threads).repeat(), dataset))

    def parse_record_of_thread(copy, serialized):
        # Each of the join's threads ran its own copy of the per-record code (`thread_id` told them
        # apart) on the records it took: record i goes through copy i % num_threads.
        return tf.case([(tf.equal(copy, thread_id),
                          lambda thread_id=thread_id: parse_record(serialized, thread_id))
                         for thread_id in range(num_threads)])

    dataset = dataset.map(parse_record_of_thread, num_parallel_calls=num_threads)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def thread_read_after(files, batch_size):
    """Left as it is: the loop's variable is read after the loop, where it would be unbound."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    examples = []
    for thread_id in range(2):
        parsed = tf.parse_single_example(serialized, FEATURES)
        examples.append([distort(parsed['x'], thread_id), parsed['id']])
    print('%d threads' % (thread_id + 1))
    return tf.train.batch_join(examples, batch_size=batch_size)


def thread_rebound(files, batch_size):
    """Left as it is: the loop's body binds its variable again."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    examples = []
    for thread_id in range(2):
        parsed = tf.parse_single_example(serialized, FEATURES)
        thread_id = thread_id * 2
        examples.append([distort(parsed['x'], thread_id), parsed['id']])
    return tf.train.batch_join(examples, batch_size=batch_size)


def sliced_tagged_batches(batch_size, num_threads=3):
    """A slice producer's list, indexed by each copy: the map function takes the tensors as
    `*input_queue`, and the copy's number after them, by keyword."""
    ids = tf.range(30)
    def parse_record_2(*input_queue, thread_id):
        return input_queue[0] + 1000 * thread_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(ids)
    dataset_2 = tf.data.Dataset.zip((tf.data.Dataset.range(num_threads).repeat(), dataset_2))

    def parse_record_2_of_thread(copy, *input_queue):
        # Each of the join's threads ran its own copy of the per-record code (`thread_id` told them
        # apart) on the records it took: record i goes through copy i % num_threads.
        return tf.case([(tf.equal(copy, thread_id),
                          lambda thread_id=thread_id: parse_record_2(*input_queue, thread_id=thread_id))
                         for thread_id in range(num_threads)])

    dataset_2 = dataset_2.map(parse_record_2_of_thread, num_parallel_calls=num_threads)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()
