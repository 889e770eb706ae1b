"""The prefilter skips a file only when it cannot hold anything qmigrate reports.

It is a text test (and, for files that could only hold towers fed through placeholders, a stdlib
parse): a file it skips is never parsed by libcst nor analysed, so a file it wrongly skips would
lose its findings in silence.
"""
import os

import pytest

from conftest import ROOT
from qmigrate import engine

HEAD = "import tensorflow as tf\n"


@pytest.mark.parametrize("body", [
    "num_buckets = 4\nbuckets = [1, 2]\n",  # `bucket` only inside other words
    "ids = tf.string_to_hash_bucket_fast(words, 100)\n",  # a hashing op, not tf.contrib.training.bucket
    # placeholders and a device, but no loop that places towers on devices
    "x = tf.placeholder(tf.float32)\nwith tf.device('/cpu:0'):\n    y = x * 2\n",
    "x = tf.placeholder(tf.float32)\nfor i in range(2):\n    y = x * i\nwith tf.device('/gpu:0'):\n    z = y\n",
])
def test_files_that_cannot_hold_queue_code_are_skipped(body):
    source = (HEAD + body).encode()
    assert not engine.may_contain_queue_code(source)
    assert not engine.analyse("skipped.py", source, engine.Options()).result().diagnostics


@pytest.mark.parametrize("source", [
    HEAD + "parts = tf.contrib.training.bucket(tensors, which, 4, 2)\n",
    HEAD + "from tensorflow.contrib.training import bucket\n",
    # a tower loop fed through placeholders (QM905), the device spelled three ways
    HEAD + "for i in range(2):\n    with tf.device('/gpu:%d' % i):\n        x = tf.placeholder(tf.float32)\n",
    HEAD + "from tensorflow import device\nx = tf.placeholder(tf.float32)\nwhile True:\n"
           "    with device('/gpu:0'):\n        break\n",
    HEAD + "from tensorflow import device as on\nx = tf.placeholder(tf.float32)\nfor i in range(2):\n"
           "    with on('/gpu:%d' % i):\n        pass\n",
    # the stdlib parser rejects it: the analysis must say so
    HEAD + "x = tf.placeholder(tf.float32)\nprint 'on device', x\n",
])
def test_files_that_may_hold_queue_code_are_analysed(source):
    assert engine.may_contain_queue_code(source.encode())


def test_a_tower_loop_fed_through_placeholders_still_gets_its_finding():
    source = (HEAD + "def towers(n):\n    for i in range(n):\n        with tf.device('/gpu:%d' % i):\n"
              "            x = tf.placeholder(tf.float32, [None, 3])\n            tf.reduce_sum(x)\n").encode()
    assert engine.may_contain_queue_code(source)
    assert "QM905" in {d.code for d in engine.analyse("towers.py", source, engine.Options()).result().diagnostics}


def test_no_file_of_the_test_data_with_findings_is_skipped():
    """Every bundled example the prefilter would skip has nothing to report when analysed."""
    skipped = 0
    for folder, _, names in os.walk(os.path.join(ROOT, "testdata")):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                source = handle.read()
            if engine.may_contain_queue_code(source):
                continue
            skipped += 1
            assert not engine.analyse(path, source, engine.Options()).result().diagnostics, path
    assert skipped  # the check ran on some files (the test data holds plain modules too)
