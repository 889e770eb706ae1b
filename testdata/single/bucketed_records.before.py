"""One function decodes each example into a dict of 1-D tensors and returns it; a public function
hands it to another that buckets the examples by length, one batch size per bucket read from a
batching scheme, padding with 0 and dropping the overlong ones (a sequence model's reader, split
over three functions)."""
import tensorflow as tf


def read_examples(files, training):
    """One decoded example at a time: its tokens and its id."""
    queue = tf.train.string_input_producer(files, num_epochs=None if training else 1, shuffle=training)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    parsed = tf.parse_single_example(serialized, {
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64),
    })
    tokens = tf.range(parsed['id'] % 7 + 1) + parsed['id'] * 10
    return {'inputs': tokens, 'targets': tf.reshape(parsed['id'], [1])}


def batch_examples(examples, scheme):
    """Batches of examples of similar length; the last partial batch of each bucket is dropped."""
    length = tf.to_int32(tf.shape(examples['inputs'])[0])
    examples['inputs'] = tf.to_int32(examples['inputs'])
    lengths, batches = tf.contrib.training.bucket_by_sequence_length(
        length,
        examples,
        scheme['batch_sizes'],
        [b + 1 for b in scheme['boundaries']],
        capacity=2,
        dynamic_pad=True,
        keep_input=length <= scheme['max_length'])
    return lengths, batches


def bucketed_examples(files, batch_sizes, boundaries, max_length, training=False):
    scheme = {'batch_sizes': batch_sizes, 'boundaries': boundaries, 'max_length': max_length}
    examples = read_examples(files, training)
    return batch_examples(examples, scheme)
