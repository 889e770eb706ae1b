"""Write TFRecord files of tf.Examples in the layout of slim's image datasets (run under TF 1.x).

usage: make_slim_data.py OUT_DIR
train-0..3.tfrecord (24 examples each) and eval-0..2.tfrecord (10 each): 'image/encoded' holds
8x8x3 raw bytes whose first three carry the example id, 'image/format' is 'raw',
'image/class/label' and 'image/id' are int64. Every example is unique. zlib-eval-0..2 and
gzip-eval-0..2 hold the eval records again, ZLIB- and GZIP-compressed.
"""
import os
import sys

import numpy as np
import tensorflow as tf

SPLITS = {"train": (4, 24), "eval": (3, 10)}


def _int64(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


def _bytes(value):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def main(out):
    rng = np.random.RandomState(3)
    example_id = 0
    for split, (files, per_file) in sorted(SPLITS.items()):
        for index in range(files):
            path = os.path.join(out, "%s-%d.tfrecord" % (split, index))
            records = []
            with tf.python_io.TFRecordWriter(path) as writer:
                for _ in range(per_file):
                    pixels = rng.randint(0, 256, size=8 * 8 * 3).astype(np.uint8)
                    pixels[0:3] = [(example_id >> 16) & 255, (example_id >> 8) & 255, example_id & 255]
                    example = tf.train.Example(features=tf.train.Features(feature={
                        "image/encoded": _bytes(pixels.tobytes()),
                        "image/format": _bytes(b"raw"),
                        "image/class/label": _int64(example_id % 10),
                        "image/id": _int64(example_id),
                    }))
                    writer.write(example.SerializeToString())
                    records.append(example.SerializeToString())
                    example_id += 1
            if split == "eval":  # the same records compressed, for readers given TFRecordOptions
                for kind in ("zlib", "gzip"):
                    options = tf.python_io.TFRecordOptions(getattr(tf.python_io.TFRecordCompressionType, kind.upper()))
                    compressed = os.path.join(out, "%s-%s-%d.tfrecord" % (kind, split, index))
                    with tf.python_io.TFRecordWriter(compressed, options=options) as writer:
                        for record in records:
                            writer.write(record)


if __name__ == "__main__":
    main(sys.argv[1])
