"""Hand-built queues dequeued one record at a time, with no batching after them: the model takes
each record as it comes (one image of its own size per step). A shuffling queue mixes the parsed
records; a FIFO queue of several threads only reads ahead. The code after the dequeue works on
one record, in the step that runs it."""
import tensorflow as tf


def _read_example(serialized):
    """One parsed example of the files, as the caller's queue takes it."""
    example = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return example['x'] * 2.0, example['id']


def mixed_records(files, epochs=2):
    def parse_record(serialized):
        example = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64)})
        x, example_id = example['x'], example['id']
        return x, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=3)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(12, epochs))
    dataset = dataset.prefetch(1)
    (x, example_id) = dataset.make_one_shot_iterator().get_next()
    # One record per step: the caller sees a batch of one.
    x = tf.reshape(x, (1, tf.shape(x)[0]))
    return x, tf.expand_dims(example_id, 0)


def read_ahead(files):
    def parse_record_2(serialized):
        x, example_id = _read_example(serialized)
        return x, example_id

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.prefetch(1)
    x, example_id = dataset_2.make_one_shot_iterator().get_next()
    return tf.expand_dims(x, 0), tf.expand_dims(example_id, 0)


def shaped_records(files):
    # The queue checks every record against shapes= when it is enqueued; a dataset would not.
    filename_queue = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example = tf.parse_single_example(serialized, features={
        'x': tf.VarLenFeature(tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    x = tf.sparse_tensor_to_dense(example['x'])
    record_queue = tf.RandomShuffleQueue(capacity=30, min_after_dequeue=12, dtypes=[tf.float32, tf.int64],
                                         shapes=[[3], []])
    enqueue_op = record_queue.enqueue([x, example['id']])
    tf.train.add_queue_runner(tf.train.QueueRunner(record_queue, [enqueue_op]))
    x, example_id = record_queue.dequeue()
    return tf.expand_dims(x, 0), tf.expand_dims(example_id, 0)
