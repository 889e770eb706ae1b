"""A slim reader function returns its parsed records and their count; a public function hands
both to a private one that trims each record and batches them with padding (three functions)."""
import collections

import numpy as np
import tensorflow as tf

slim = tf.contrib.slim

Sample = collections.namedtuple('Sample', ('values', 'steps', 'sample_id'))


def _steps_of(sample_id):
    return np.int32(sample_id % 4 + 1)


def _read_samples(files, training):
    """Parsed samples one at a time, and how many the files hold."""
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'id': tf.FixedLenFeature((), tf.int64), 'v': tf.FixedLenFeature([2], tf.float32)},
        {'sample_id': slim.tfexample_decoder.Tensor('id'), 'v': slim.tfexample_decoder.Tensor('v')})
    count = sum(1 for f in files for _ in tf.python_io.tf_record_iterator(f))
    dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, count, {})
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=1, num_epochs=None if training else 1, shuffle=training)
    sample_id, v = provider.get(['sample_id', 'v'])
    steps = tf.py_func(_steps_of, [sample_id], tf.int32)
    steps.set_shape(())
    values = tf.ones(tf.stack([steps, 2])) * v
    return Sample(values=values, steps=steps, sample_id=sample_id), count


def _batch_samples(samples, count, batch_size, max_steps, threads):
    values, steps, sample_id = samples
    tf.logging.info('Batching %d samples', count)
    max_steps = tf.minimum(max_steps, steps) if max_steps else steps
    values = values[:max_steps]
    batch_tensors = {'values': values, 'steps': max_steps, 'ids': sample_id}
    batch = tf.train.batch(batch_tensors, batch_size=batch_size, num_threads=threads, capacity=32,
                           dynamic_pad=True, allow_smaller_final_batch=False)
    batch['num_batches'] = count // batch_size
    return batch


def sample_batches(files, batch_size, max_steps=0, training=False, threads=1):
    with tf.device('/cpu:0'):
        samples, count = _read_samples(files, training)
        return _batch_samples(samples, count, batch_size, max_steps, threads)


def batched_tensors(files, batch_size, max_steps=3, threads=1):
    """The batches without their count."""
    batch = sample_batches(files, batch_size, max_steps, threads=threads)
    return {key: value for key, value in batch.items() if key != 'num_batches'}
