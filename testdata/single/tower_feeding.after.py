"""Two multi-GPU feeding styles without a shared input pipeline: a batch split across the towers
(whose sizes do not divide), and a placeholder per tower fed from numpy."""
import numpy as np
import tensorflow as tf

BATCH_SIZE = 250
NUM_GPUS = 4


def split_towers(files, model):
    def parse_record(record):
        pixels = tf.decode_raw(record, tf.uint8)
        return pixels[1:], pixels[0]

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=3073))
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(1000))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(BATCH_SIZE))
    dataset = dataset.prefetch(1)
    images, labels = dataset.make_one_shot_iterator().get_next()
    image_splits = tf.split(images, NUM_GPUS)
    label_splits = tf.split(labels, NUM_GPUS)
    losses = []
    for i in range(NUM_GPUS):
        with tf.device('/gpu:%d' % i):
            losses.append(model(image_splits[i], label_splits[i]))
    return losses


def placeholder_towers(model, num_gpus=NUM_GPUS):
    feeds, losses = [], []
    for i in range(num_gpus):
        with tf.device('/gpu:%d' % i), tf.name_scope('tower_%d' % i):
            images = tf.placeholder(tf.float32, [None, 3072])
            labels = tf.placeholder(tf.int64, [None])
            feeds.append((images, labels))
            losses.append(model(images, labels))
    return feeds, losses


def feed_dict_for(feeds, arrays):
    chunks = zip(np.array_split(arrays[0], len(feeds)), np.array_split(arrays[1], len(feeds)))
    return {k: v for (images, labels), (x, y) in zip(feeds, chunks) for k, v in ((images, x), (labels, y))}
