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
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)

    examples = []
    for thread_id in range(num_threads):
        parsed = tf.parse_single_example(serialized, FEATURES)
        # which copy took the record, beside its id
        tagged = tf.to_float(parsed['id']) + 1000.0 * thread_id
        examples.append([tagged, distort(parsed['x'], thread_id), parsed['id']])
    return tf.train.batch_join(examples, batch_size=batch_size)


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
    input_queue = tf.train.slice_input_producer([ids], num_epochs=1, shuffle=False)
    examples = []
    for thread_id in range(num_threads):
        examples.append([input_queue[0] + 1000 * thread_id])
    return tf.train.batch_join(examples, batch_size=batch_size)
