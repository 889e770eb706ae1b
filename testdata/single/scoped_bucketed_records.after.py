"""A reader and a bucketing function, each inside a name scope: the reader decodes the fields it is
asked for with a slim decoder and returns them as a dict; the bucketing function takes the longest
field of each example as its length, one batch size per bucket (the shape of a sequence model's
data reader, read in one module)."""
import tensorflow as tf


def decoded_examples(sources, fields, training, capacity=16):
    """One example at a time, decoded to a dict of 1-D tensors."""
    with tf.name_scope('decoded_examples'):
        files = tf.contrib.slim.parallel_reader.get_data_files(sources)
        data_files = tf.contrib.slim.parallel_reader.get_data_files(sources)
        dataset = tf.data.Dataset.from_tensor_slices(data_files)
        if training:
            dataset = dataset.shuffle(tf.size(data_files, out_type=tf.int64))
        dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=min(2 if training else 1, len(files)))
        if training:
            dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(capacity, None if training else 1))
        else:
            dataset = dataset.repeat(None if training else 1)
        handlers = {name: tf.contrib.slim.tfexample_decoder.Tensor(name) for name in fields}
        decoder = tf.contrib.slim.tfexample_decoder.TFExampleDecoder(fields, handlers)
        items = sorted(handlers)

        def parse_record(serialized):
            decoded = decoder.decode(serialized, items=items)
            return {name: tensor for (name, tensor) in zip(items, decoded)}

        return dataset.map(parse_record)


def bucket_examples(examples, batch_sizes, boundaries):
    """Examples of similar length padded with 0 into batches: [batch, longest] per field, and
    their lengths."""
    with tf.name_scope('bucket_examples'):
        def prepare_record(examples):
            examples['steps'] = tf.range(tf.to_int32(examples['id'][0]) % 5)
            longest = 0
            for tensor in examples.values():
                size = tf.shape(tensor)[0] if len(tensor.get_shape()) < 2 else tf.size(tensor)
                longest = tf.maximum(longest, size)
            return longest, examples

        dataset = examples.map(prepare_record)
        if isinstance(batch_sizes, (list, tuple)):
            dataset = dataset.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([b + 1 for b in boundaries], length), tf.int64)), lambda bucket, window: window.padded_batch(tf.gather(tf.cast(batch_sizes, tf.int64), bucket), window.output_shapes), window_size_func=lambda bucket: tf.gather(tf.cast(batch_sizes, tf.int64), bucket)))
        else:
            dataset = dataset.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([b + 1 for b in boundaries], length), tf.int64)), lambda bucket, window: window.padded_batch(batch_sizes, window.output_shapes), batch_sizes))
        dataset = dataset.prefetch(1)
        (lengths, batches) = dataset.make_one_shot_iterator().get_next()
        return lengths, batches


def example_batches(files, batch_sizes, boundaries, training=False):
    fields = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([1], tf.int64),
              'v': tf.VarLenFeature(tf.float32)}
    examples = decoded_examples(files, fields, training)
    return bucket_examples(examples, batch_sizes, boundaries)
