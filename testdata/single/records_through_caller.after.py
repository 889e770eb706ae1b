"""Records read in one function, handed by a public function to a private one that works on each
record and batches them: the reading, the per-record code and the batch are in three functions."""
import collections

import numpy as np
import tensorflow as tf

slim = tf.contrib.slim

Clip = collections.namedtuple('Clip', ('frames', 'count', 'name', 'notes'))


def _clip_count(notes):
    return np.int32(len(notes) % 7 + 1)


def _trim_notes(notes, keep):
    return notes[:int(keep)]


def trim_notes_op(notes, keep):
    trimmed = tf.py_func(_trim_notes, [notes, keep], tf.string)
    trimmed.set_shape(())
    return trimmed


def _read_clips(pattern, training):
    """One clip a run, parsed, and how many there are."""
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'name': tf.FixedLenFeature((), tf.string), 'notes': tf.FixedLenFeature((), tf.string)},
        {'name': slim.tfexample_decoder.Tensor('name'), 'notes': slim.tfexample_decoder.Tensor('notes')})
    files = tf.gfile.Glob(pattern)
    total = sum(1 for f in files for _ in tf.python_io.tf_record_iterator(f))
    dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, total, {})
    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    if training:
        dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=len(files))
    if training:
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(128, None if training else 1))
    else:
        dataset_2 = dataset_2.repeat(None if training else 1)
    serialized = dataset_2.make_one_shot_iterator().get_next()
    name, notes = dataset.decoder.decode(serialized, ['name', 'notes'])
    count = tf.py_func(_clip_count, [notes], tf.int32)
    count.set_shape(())
    frames = tf.ones(tf.stack([count, 4]))
    return Clip(frames=frames, count=count, name=name, notes=notes), total


def _batch_clips(clips, total, batch_size, max_frames):
    (frames, count, name, notes) = clips
    frames = tf.reshape(frames, (-1, 4))
    keep = tf.reduce_min([max_frames, count]) if max_frames else count
    delta = tf.shape(frames)[0] - keep
    frames = tf.case([(delta > 0, lambda: frames[0:-delta])], default=lambda: frames)
    trimmed = trim_notes_op(notes, keep)
    batch = tf.train.batch({'frames': frames, 'lengths': keep, 'names': name, 'notes': trimmed},
                           batch_size=batch_size, num_threads=2, capacity=16, dynamic_pad=True,
                           allow_smaller_final_batch=False)
    batch['num_batches'] = total // batch_size
    return batch


def clip_batches(pattern, batch_size, max_frames=0, training=True):
    with tf.device('/cpu:0'):
        clips, total = _read_clips(pattern, training)
        return _batch_clips(clips, total, batch_size, max_frames)
