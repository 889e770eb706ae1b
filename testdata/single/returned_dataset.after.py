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
    data_files = tf.contrib.slim.parallel_reader.get_data_files(files)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    if training:
        dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    if training:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(128, None if training else 1))
    else:
        dataset_2 = dataset_2.repeat(None if training else 1)

    def parse_record(serialized):
        sample_id, v = decoder.decode(serialized, ['sample_id', 'v'])
        steps = tf.py_func(_steps_of, [sample_id], tf.int32)
        steps.set_shape(())
        values = tf.ones(tf.stack([steps, 2])) * v
        return Sample(values=values, steps=steps, sample_id=sample_id)

    return dataset_2.map(parse_record), count


def _batch_samples(samples, count, batch_size, max_steps, threads):
    tf.logging.info('Batching %d samples', count)

    def prepare_record(samples):
        values, steps, sample_id = samples
        record_max_steps = tf.minimum(max_steps, steps) if max_steps else steps
        values = values[:record_max_steps]
        batch_tensors = {'values': values, 'steps': record_max_steps, 'ids': sample_id}
        return batch_tensors

    dataset = samples.map(prepare_record, num_parallel_calls=threads)
    dataset = dataset.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, dataset.output_shapes))
    dataset = dataset.prefetch(1)
    batch = dataset.make_one_shot_iterator().get_next()
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
