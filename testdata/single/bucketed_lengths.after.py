"""Records batched by length with tf.contrib.training.bucket_by_sequence_length: variable-length
lines padded per batch, fixed-size records filtered by keep_input with a dict of tensors, and rows
sliced from Python lists (a text-to-speech loader's shape)."""
import tensorflow as tf


def char_buckets(csv_files, batch_size):
    def parse_record(line):
        chars = tf.string_split([line], delimiter="").values
        first_field = tf.string_split([line], delimiter=",").values[:1]
        return tf.size(chars), (chars, first_field)

    dataset = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([16, 17], length), tf.int64)), lambda bucket, window: window.padded_batch(batch_size, window.output_shapes), batch_size))
    dataset = dataset.prefetch(1)
    lengths, (char_batch, field_batch) = dataset.make_one_shot_iterator().get_next()
    return lengths, char_batch, field_batch


def full_buckets(csv_files, batch_size, num_epochs=2):
    """Without allow_smaller_final_batch: what is left in each bucket at the end is dropped."""
    def parse_record_2(line):
        chars = tf.string_split([line], delimiter="").values
        return tf.size(chars), (chars,)

    dataset_2 = tf.data.Dataset.from_tensor_slices(csv_files)
    dataset_2 = dataset_2.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([16, 17], length), tf.int64)), lambda bucket, window: window.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, window.output_shapes)), batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return (lambda lengths, tensors: (lengths, list(tensors)))(*dataset_2.make_one_shot_iterator().get_next())


def kept_buckets(files, batch_size):
    def parse_record_3(serialized):
        parsed = tf.parse_single_example(serialized, {
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64),
        })
        length = tf.cast(parsed['id'] % 7, tf.int32)
        keep = tf.not_equal(parsed['id'] % 5, 0)
        return (length, {'x': parsed['x'], 'id': parsed['id']}), tf.convert_to_tensor(keep, tf.bool)

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.filter(lambda element, keep: keep)
    dataset_3 = dataset_3.map(lambda element, keep: element)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([2, 4], length), tf.int64)), lambda bucket, window: window.batch(batch_size), batch_size))
    dataset_3 = dataset_3.prefetch(1)
    lengths, batch = dataset_3.make_one_shot_iterator().get_next()
    return lengths, batch


def sliced_buckets(batch_size):
    ids = list(range(40))
    lengths = [i % 9 + 1 for i in ids]
    def parse_record_4(example_id, length):
        # A sequence as long as the record says, made of its id.
        sequence = tf.fill([length], example_id)
        sequence.set_shape([None])
        return length, (sequence, example_id)

    dataset_4 = tf.data.Dataset.from_tensor_slices((ids, lengths))
    dataset_4 = dataset_4.map(parse_record_4)
    dataset_4 = dataset_4.repeat(1)
    dataset_4 = dataset_4.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([i for i in range(3, 9, 3)], length), tf.int64)), lambda bucket, window: window.padded_batch(batch_size, window.output_shapes), batch_size))
    dataset_4 = dataset_4.prefetch(1)
    lengths, (sequences, id_batch) = dataset_4.make_one_shot_iterator().get_next()
    return lengths, sequences, id_batch


def branch_buckets(csv_files, batch_size, fine):
    """Left alone: each arm buckets with its own boundaries."""
    queue = tf.train.string_input_producer(csv_files, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(queue)
    chars = tf.string_split([line], delimiter="").values
    if fine:
        _, (batch,) = tf.contrib.training.bucket_by_sequence_length(tf.size(chars), [chars], batch_size, [15, 16, 17],
                                                                    dynamic_pad=True)
    else:
        _, (batch,) = tf.contrib.training.bucket_by_sequence_length(tf.size(chars), [chars], batch_size, [16],
                                                                    dynamic_pad=True)
    return batch
