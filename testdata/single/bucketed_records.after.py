"""One function decodes each example into a dict of 1-D tensors and returns it; a public function
hands it to another that buckets the examples by length, one batch size per bucket read from a
batching scheme, padding with 0 and dropping the overlong ones (a sequence model's reader, split
over three functions)."""
import tensorflow as tf


def read_examples(files, training):
    """One decoded example at a time: its tokens and its id."""
    dataset = tf.data.Dataset.from_tensor_slices(files)
    if training:
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.repeat(None if training else 1)

    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, {
            'x': tf.FixedLenFeature([3], tf.float32),
            'id': tf.FixedLenFeature([], tf.int64),
        })
        tokens = tf.range(parsed['id'] % 7 + 1) + parsed['id'] * 10
        return {'inputs': tokens, 'targets': tf.reshape(parsed['id'], [1])}

    return dataset.map(parse_record)


def batch_examples(examples, scheme):
    """Batches of examples of similar length; the last partial batch of each bucket is dropped."""

    def prepare_record(examples):
        length = tf.to_int32(tf.shape(examples['inputs'])[0])
        examples['inputs'] = tf.to_int32(examples['inputs'])
        return (length, examples), length <= scheme['max_length']

    dataset = examples.map(prepare_record)
    dataset = dataset.filter(lambda element, keep: keep)
    dataset = dataset.map(lambda element, keep: element)
    if isinstance(scheme['batch_sizes'], (list, tuple)):
        dataset = dataset.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([b + 1 for b in scheme['boundaries']], length), tf.int64)), lambda bucket, window: window.apply(tf.contrib.data.padded_batch_and_drop_remainder(tf.gather(tf.cast(scheme['batch_sizes'], tf.int64), bucket), window.output_shapes)), window_size_func=lambda bucket: tf.gather(tf.cast(scheme['batch_sizes'], tf.int64), bucket)))
    else:
        dataset = dataset.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([b + 1 for b in scheme['boundaries']], length), tf.int64)), lambda bucket, window: window.apply(tf.contrib.data.padded_batch_and_drop_remainder(scheme['batch_sizes'], window.output_shapes)), scheme['batch_sizes']))
    dataset = dataset.prefetch(1)
    lengths, batches = dataset.make_one_shot_iterator().get_next()
    return lengths, batches


def bucketed_examples(files, batch_sizes, boundaries, max_length, training=False):
    scheme = {'batch_sizes': batch_sizes, 'boundaries': boundaries, 'max_length': max_length}
    examples = read_examples(files, training)
    return batch_examples(examples, scheme)
