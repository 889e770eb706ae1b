"""Records batched by length with tf.contrib.training.bucket_by_sequence_length: variable-length
lines padded per batch, fixed-size records filtered by keep_input with a dict of tensors, and rows
sliced from Python lists (a text-to-speech loader's shape)."""
import tensorflow as tf


def char_buckets(csv_files, batch_size):
    queue = tf.train.string_input_producer(csv_files, num_epochs=1, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(queue)
    chars = tf.string_split([line], delimiter="").values
    first_field = tf.string_split([line], delimiter=",").values[:1]
    lengths, (char_batch, field_batch) = tf.contrib.training.bucket_by_sequence_length(
        input_length=tf.size(chars),
        tensors=[chars, first_field],
        batch_size=batch_size,
        bucket_boundaries=[16, 17],
        capacity=4 * batch_size,
        dynamic_pad=True,
        allow_smaller_final_batch=True)
    return lengths, char_batch, field_batch


def full_buckets(csv_files, batch_size, num_epochs=2):
    """Without allow_smaller_final_batch: what is left in each bucket at the end is dropped."""
    queue = tf.train.string_input_producer(csv_files, num_epochs=num_epochs, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(queue)
    chars = tf.string_split([line], delimiter="").values
    return tf.contrib.training.bucket_by_sequence_length(tf.size(chars), [chars], batch_size, [16, 17],
                                                         dynamic_pad=True)


def kept_buckets(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    parsed = tf.parse_single_example(serialized, {
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64),
    })
    length = tf.cast(parsed['id'] % 7, tf.int32)
    keep = tf.not_equal(parsed['id'] % 5, 0)
    lengths, batch = tf.contrib.training.bucket_by_sequence_length(
        length, {'x': parsed['x'], 'id': parsed['id']}, batch_size, [2, 4], keep_input=keep,
        allow_smaller_final_batch=True)
    return lengths, batch


def sliced_buckets(batch_size):
    ids = list(range(40))
    lengths = [i % 9 + 1 for i in ids]
    example_id, length = tf.train.slice_input_producer([ids, lengths], shuffle=False, num_epochs=1)
    # A sequence as long as the record says, made of its id.
    sequence = tf.fill([length], example_id)
    sequence.set_shape([None])
    lengths, (sequences, id_batch) = tf.contrib.training.bucket_by_sequence_length(
        input_length=length,
        tensors=[sequence, example_id],
        batch_size=batch_size,
        bucket_boundaries=[i for i in range(3, 9, 3)],
        dynamic_pad=True,
        allow_smaller_final_batch=True)
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
