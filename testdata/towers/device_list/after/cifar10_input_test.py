"""A unit test of the reader helper, in the way the CIFAR-10 tutorial's own test calls it: a queue
of file names built by hand, `read_cifar10(queue)`, and checks of key, label and image.

Run as a script (python cifar10_input_test.py): exit status 0 when every check holds. The
migration must leave it passing: the helper it calls keeps its signature and its `key`.
"""
import os
import sys
import tempfile

import numpy as np
import tensorflow as tf

import cifar10_input


def _write_records(path, labels):
  """One CIFAR-10 record per label: the label byte, then 3072 pixel bytes of value label * 10."""
  with open(path, "wb") as handle:
    for label in labels:
      handle.write(bytes([label]) + bytes([label * 10]) * (32 * 32 * 3))


def main():
  labels = [3, 7, 1]
  folder = tempfile.mkdtemp()
  path = os.path.join(folder, "records.bin")
  _write_records(path, labels)

  queue = tf.FIFOQueue(99, [tf.string], shapes=())
  enqueue = queue.enqueue([path])
  close = queue.close()
  result = cifar10_input.read_cifar10(queue)

  with tf.Session() as sess:
    sess.run(enqueue)
    sess.run(close)
    for index, label in enumerate(labels):
      key, got_label, image = sess.run([result.key, result.label, result.uint8image])
      expected_key = ("%s:%d" % (path, index)).encode()
      assert key == expected_key, (key, expected_key)
      assert got_label == [label], (got_label, label)
      assert image.shape == (32, 32, 3), image.shape
      assert (image == label * 10).all()
  print("cifar10_input_test: %d records checked" % len(labels))
  return 0


if __name__ == "__main__":
  sys.exit(main())
