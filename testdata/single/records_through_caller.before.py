"""Records read in one function, handed by a public function to a private one that works on each
record and batches them: the reading, the per-record code and the batch are in three functions."""
import collections

import numpy as np
import tensorflow as tf

slim = tf.contrib.slim

Clip = collections.namedtuple('Clip', ('frames', 'count', 'clip_id', 'raw'))


def _clip_count(clip_id):
    return np.int32(clip_id % 5 + 1)


def _trim_raw(raw, keep):
    return raw[:int(keep)]


def trim_raw_op(raw, keep):
    trimmed = tf.py_func(_trim_raw, [raw, keep], tf.string)
    trimmed.set_shape(())
    return trimmed


def _read_clips(pattern, training):
    """One clip a run, parsed, and how many there are."""
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'image/id': tf.FixedLenFeature((), tf.int64), 'image/encoded': tf.FixedLenFeature((), tf.string)},
        {'clip_id': slim.tfexample_decoder.Tensor('image/id'), 'raw': slim.tfexample_decoder.Tensor('image/encoded')})
    files = sorted(tf.gfile.Glob(pattern))
    total = sum(1 for f in files for _ in tf.python_io.tf_record_iterator(f))
    dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, total, {})
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=1, num_epochs=None if training else 1, shuffle=training)
    clip_id, raw = provider.get(['clip_id', 'raw'])
    count = tf.py_func(_clip_count, [clip_id], tf.int32)
    count.set_shape(())
    frames = tf.ones(tf.stack([count, 4])) * tf.to_float(clip_id)
    return Clip(frames=frames, count=count, clip_id=clip_id, raw=raw), total


def _batch_clips(clips, total, batch_size, max_frames):
    (frames, count, clip_id, raw) = clips
    frames = tf.reshape(frames, (-1, 4))
    keep = tf.reduce_min([max_frames, count]) if max_frames else count
    delta = tf.shape(frames)[0] - keep
    frames = tf.case([(delta > 0, lambda: frames[0:-delta])], default=lambda: frames)
    trimmed = trim_raw_op(raw, keep)
    batch = tf.train.batch({'frames': frames, 'lengths': keep, 'ids': clip_id, 'raw': trimmed},
                           batch_size=batch_size, num_threads=1, capacity=16, dynamic_pad=True,
                           allow_smaller_final_batch=False)
    batch['num_batches'] = total // batch_size
    return batch


def clip_batches(pattern, batch_size, max_frames=0, training=True):
    with tf.device('/cpu:0'):
        clips, total = _read_clips(pattern, training)
        return _batch_clips(clips, total, batch_size, max_frames)


def clip_tensors(data_dir, batch_size, max_frames=0, training=False):
    """The batched tensors alone, without the count of batches."""
    batch = clip_batches(data_dir + ('/train-*.tfrecord' if training else '/eval-*.tfrecord'), batch_size,
                         max_frames, training)
    return {key: value for key, value in batch.items() if key != 'num_batches'}
