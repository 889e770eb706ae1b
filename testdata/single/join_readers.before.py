"""The 'Reading data' guide's pattern: one reader helper, several readers on one file queue, their
records mixed by (shuffle_)batch_join; the helper returning a tuple, or a dict."""
import tensorflow as tf


def read_my_file_format(filename_queue):
    reader = tf.TextLineReader(skip_header_lines=1)
    _, record_string = reader.read(filename_queue)
    record_defaults = [[0.0], [0.0], [0.0], [0.0], [0]]
    col1, col2, col3, col4, label = tf.decode_csv(record_string, record_defaults)
    features = tf.stack([col1, col2, col3, col4])
    return features, label


def input_pipeline(filenames, batch_size, num_epochs=None, read_threads=3):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=num_epochs, shuffle=True)
    example_list = [read_my_file_format(filename_queue) for _ in range(read_threads)]
    min_after_dequeue = 20
    capacity = min_after_dequeue + 3 * batch_size
    example_batch, label_batch = tf.train.shuffle_batch_join(
        example_list, batch_size=batch_size, capacity=capacity,
        min_after_dequeue=min_after_dequeue, allow_smaller_final_batch=True)
    return example_batch, label_batch


def ordered_pipeline(filenames, batch_size):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=1, shuffle=False)
    rows = [read_my_file_format(filename_queue) for _ in range(2)]
    return tf.train.batch_join(rows, batch_size=batch_size, allow_smaller_final_batch=True)


def read_example(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})
    return {'x': features['x'], 'raw': serialized}


def dict_inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
    readers = [read_example(queue) for _ in range(2)]
    return tf.train.batch_join(readers, batch_size)
