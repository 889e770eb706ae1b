"""The reader's key kept: TFRecord keys (`<file>:<byte offset>`) rebuilt from each record's offset,
chunks read with read_up_to from compressed files whose options are named a line above, and a
batch in each arm of an if/else after statements of its own (one dataset, a tail per arm)."""
import tensorflow as tf

_SCHEMA = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def keyed_chunks(patterns, batch_size, epochs, shuffle):
    epochs = epochs or None
    name_queue = tf.train.string_input_producer(patterns, epochs, shuffle)
    compressed = tf.python_io.TFRecordOptions(compression_type=tf.python_io.TFRecordCompressionType.GZIP)
    record_keys, records = tf.TFRecordReader(options=compressed).read_up_to(name_queue, batch_size)

    if shuffle:
        # Keep a few batches mixed.
        keep = 4 * batch_size
        return tf.train.shuffle_batch([record_keys, records], batch_size, keep + 2 * batch_size, keep,
                                      enqueue_many=True, allow_smaller_final_batch=True)
    else:
        room = 2 * batch_size
        return tf.train.batch([record_keys, records], batch_size, capacity=room, enqueue_many=True,
                              allow_smaller_final_batch=True)


def keyed_examples(files, batch_size, training):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    where, serialized = reader.read(queue)
    example = tf.parse_single_example(serialized, _SCHEMA)
    source = tf.string_split([where], ':').values[0]
    if training:
        after = 10
        batch = tf.train.shuffle_batch({'id': example['id'], 'where': where, 'file': source}, batch_size,
                                       capacity=after + 3 * batch_size, min_after_dequeue=after,
                                       allow_smaller_final_batch=True)
    else:
        batch = tf.train.batch({'id': example['id'], 'where': where, 'file': source}, batch_size,
                               allow_smaller_final_batch=True)
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
