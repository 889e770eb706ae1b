"""Write small synthetic data sets for the behaviour tests (run under the TF 1.x virtualenv).

Every example carries a unique id so that tests can tell exactly which examples came out.
usage: make_data.py OUT_DIR [--learnable-cifar [RECORDS_PER_FILE]]
"""
import os
import sys

import numpy as np
import tensorflow as tf

CIFAR_FILES = 5
CIFAR_RECORDS_PER_FILE = 64


def cifar(out):
    """CIFAR-10 binary: 1 label byte + 3072 pixel bytes; the id in the first three pixel bytes."""
    rng = np.random.RandomState(0)
    example_id = 0
    for index in range(1, CIFAR_FILES + 1):
        records = []
        for _ in range(CIFAR_RECORDS_PER_FILE):
            label = example_id % 10
            pixels = rng.randint(0, 256, size=3072).astype(np.uint8)
            pixels[0:3] = [(example_id >> 16) & 255, (example_id >> 8) & 255, example_id & 255]
            records.append(np.concatenate([[label], pixels]).astype(np.uint8).tobytes())
            example_id += 1
        with open(os.path.join(out, "data_batch_%d.bin" % index), "wb") as handle:
            handle.write(b"".join(records))


def mnist_tfrecords(out):
    rng = np.random.RandomState(1)
    example_id = 0
    for index in range(3):
        with tf.python_io.TFRecordWriter(os.path.join(out, "mnist_%d.tfrecords" % index)) as writer:
            for _ in range(40):
                image = rng.randint(0, 256, size=784).astype(np.uint8)
                image[0:2] = [example_id >> 8, example_id & 255]
                example = tf.train.Example(features=tf.train.Features(feature={
                    "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.tobytes()])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[example_id % 10])),
                }))
                writer.write(example.SerializeToString())
                example_id += 1


def dict_tfrecords(out):
    example_id = 0
    for index in range(2):
        with tf.python_io.TFRecordWriter(os.path.join(out, "dict_%d.tfrecords" % index)) as writer:
            for _ in range(25):
                example = tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[example_id, 1.0, -1.0])),
                    "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[example_id])),
                    "v": tf.train.Feature(float_list=tf.train.FloatList(value=[example_id, 0.5])),
                }))
                writer.write(example.SerializeToString())
                example_id += 1


def sequence_tfrecords(out):
    """SequenceExamples: the id in the context, and `id + 1` frames of two floats each."""
    example_id = 0
    for index in range(2):
        with tf.python_io.TFRecordWriter(os.path.join(out, "sequence_%d.tfrecords" % index)) as writer:
            for _ in range(20):
                frames = [tf.train.Feature(float_list=tf.train.FloatList(value=[example_id, step]))
                          for step in range(example_id % 5 + 1)]
                example = tf.train.SequenceExample(
                    context=tf.train.Features(feature={
                        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[example_id]))}),
                    feature_lists=tf.train.FeatureLists(feature_list={
                        "frames": tf.train.FeatureList(feature=frames)}))
                writer.write(example.SerializeToString())
                example_id += 1


def gzip_tfrecords(out):
    """The dict records again, GZIP-compressed."""
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    example_id = 0
    for index in range(2):
        path = os.path.join(out, "gzip_%d.tfrecords" % index)
        with tf.python_io.TFRecordWriter(path, options=options) as writer:
            for _ in range(15):
                example = tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[example_id, 2.0, -2.0])),
                    "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[example_id])),
                }))
                writer.write(example.SerializeToString())
                example_id += 1


def csv_files(out):
    example_id = 0
    for index in range(3):
        with open(os.path.join(out, "iris_%d.csv" % index), "w") as handle:
            handle.write("sepal_length,sepal_width,petal_length,petal_width,species\n")
            for _ in range(30):
                handle.write("%d,%.1f,%.1f,%.1f,%d\n" % (example_id, 3.5, 1.4, 0.2, example_id % 3))
                example_id += 1


def png_files(out):
    folder = os.path.join(out, "png")
    os.makedirs(folder)
    image = tf.placeholder(tf.uint8, [20, 20, 1])
    encoded = tf.image.encode_png(image)
    rng = np.random.RandomState(2)
    with tf.Session() as sess:
        for example_id in range(37):
            pixels = rng.randint(0, 256, size=(20, 20, 1)).astype(np.uint8)
            pixels[0, 0, 0] = example_id
            with open(os.path.join(folder, "img_%03d.png" % example_id), "wb") as handle:
                handle.write(sess.run(encoded, {image: pixels}))


def learnable_cifar(out, train_files=5, per_file=256, test_records=256, noise=20.0):
    """CIFAR-10 binary files a small conv net can learn: each class has its own hue, plus noise.

    Ids 0.. for training examples, 100000.. for test examples.
    """
    rng = np.random.RandomState(3)
    # Ten hues around the colour circle: distinct even after per-image standardisation, which
    # removes brightness and contrast (and so the tutorial's random brightness and contrast).
    angles = 2 * np.pi * np.arange(10) / 10.0
    palette = 128 + 80 * np.stack([np.cos(angles), np.cos(angles - 2 * np.pi / 3),
                                   np.cos(angles + 2 * np.pi / 3)], axis=1).astype(np.float32)

    def records(first_id, count):
        out_bytes = []
        for offset in range(count):
            example_id = first_id + offset
            label = rng.randint(0, 10)
            image = palette[label][:, None, None] + rng.normal(0, noise, size=(3, 32, 32))
            pixels = np.clip(image, 0, 255).astype(np.uint8).reshape(-1)
            pixels[0:3] = [(example_id >> 16) & 255, (example_id >> 8) & 255, example_id & 255]
            out_bytes.append(np.concatenate([[label], pixels]).astype(np.uint8).tobytes())
        return b"".join(out_bytes)

    for index in range(1, train_files + 1):
        data = records((index - 1) * per_file, per_file)
        with open(os.path.join(out, "data_batch_%d.bin" % index), "wb") as handle:
            handle.write(data)
        _as_tfrecords(data, os.path.join(out, "train-%05d.tfrecords" % (index - 1)))
    data = records(100000, test_records)
    with open(os.path.join(out, "test_batch.bin"), "wb") as handle:
        handle.write(data)
    _as_tfrecords(data, os.path.join(out, "test.tfrecords"))


def _as_tfrecords(data, path, record_bytes=3073):
    """The same examples as tf.train.Example records: image_raw (CIFAR layout), label, id."""
    with tf.python_io.TFRecordWriter(path) as writer:
        for start in range(0, len(data), record_bytes):
            record = np.frombuffer(data[start:start + record_bytes], dtype=np.uint8)
            example_id = (int(record[1]) << 16) | (int(record[2]) << 8) | int(record[3])
            example = tf.train.Example(features=tf.train.Features(feature={
                "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[record[1:].tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(record[0])])),
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[example_id])),
            }))
            writer.write(example.SerializeToString())


if __name__ == "__main__":
    target = sys.argv[1]
    os.makedirs(target, exist_ok=True)
    if sys.argv[2:3] == ["--learnable-cifar"]:
        # An optional count of records per file: bench/epoch_stall_bench.py wants longer epochs.
        learnable_cifar(target, *[int(n) for n in sys.argv[3:4]])
    else:
        for make in (cifar, mnist_tfrecords, dict_tfrecords, sequence_tfrecords, gzip_tfrecords, csv_files,
                     png_files):
            make(target)
