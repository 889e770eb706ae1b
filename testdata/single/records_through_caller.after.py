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
        clip_id, raw = decoder.decode(serialized, ['clip_id', 'raw'])
        count = tf.py_func(_clip_count, [clip_id], tf.int32)
        count.set_shape(())
        frames = tf.ones(tf.stack([count, 4])) * tf.to_float(clip_id)
        return Clip(frames=frames, count=count, clip_id=clip_id, raw=raw)

    return dataset_2.map(parse_record), total


def _batch_clips(clips, total, batch_size, max_frames):
    def prepare_record(clips):
        (frames, count, clip_id, raw) = clips
        frames = tf.reshape(frames, (-1, 4))
        keep = tf.reduce_min([max_frames, count]) if max_frames else count
        delta = tf.shape(frames)[0] - keep
        frames = tf.case([(delta > 0, lambda: frames[0:-delta])], default=lambda: frames)
        trimmed = trim_raw_op(raw, keep)
        return {'frames': frames, 'lengths': keep, 'ids': clip_id, 'raw': trimmed}

    dataset = clips.map(prepare_record)
    dataset = dataset.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, dataset.output_shapes))
    dataset = dataset.prefetch(1)
    batch = dataset.make_one_shot_iterator().get_next()
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
