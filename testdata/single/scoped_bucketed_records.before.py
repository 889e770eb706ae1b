"""A reader and a bucketing function, each inside a name scope: the reader decodes the fields it is
asked for with a slim decoder and returns them as a dict; the bucketing function takes the longest
field of each example as its length, one batch size per bucket (the shape of a sequence model's
data reader, read in one module)."""
import tensorflow as tf


def decoded_examples(sources, fields, training, capacity=16):
    """One example at a time, decoded to a dict of 1-D tensors."""
    with tf.name_scope('decoded_examples'):
        files = tf.contrib.slim.parallel_reader.get_data_files(sources)
        _, serialized = tf.contrib.slim.parallel_reader.parallel_read(
            sources,
            tf.TFRecordReader,
            num_epochs=None if training else 1,
            shuffle=training,
            capacity=2 * capacity,
            min_after_dequeue=capacity,
            num_readers=min(2 if training else 1, len(files)))
        handlers = {name: tf.contrib.slim.tfexample_decoder.Tensor(name) for name in fields}
        decoder = tf.contrib.slim.tfexample_decoder.TFExampleDecoder(fields, handlers)
        items = sorted(handlers)
        decoded = decoder.decode(serialized, items=items)
        return {name: tensor for (name, tensor) in zip(items, decoded)}


def bucket_examples(examples, batch_sizes, boundaries):
    """Examples of similar length padded with 0 into batches: [batch, longest] per field, and
    their lengths."""
    with tf.name_scope('bucket_examples'):
        examples['steps'] = tf.range(tf.to_int32(examples['id'][0]) % 5)
        longest = 0
        for tensor in examples.values():
            size = tf.shape(tensor)[0] if len(tensor.get_shape()) < 2 else tf.size(tensor)
            longest = tf.maximum(longest, size)
        (lengths, batches) = tf.contrib.training.bucket_by_sequence_length(
            longest,
            examples,
            batch_sizes,
            [b + 1 for b in boundaries],
            capacity=2,
            dynamic_pad=True,
            allow_smaller_final_batch=True)
        return lengths, batches


def example_batches(files, batch_sizes, boundaries, training=False):
    fields = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([1], tf.int64),
              'v': tf.VarLenFeature(tf.float32)}
    examples = decoded_examples(files, fields, training)
    return bucket_examples(examples, batch_sizes, boundaries)
