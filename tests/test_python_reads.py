"""A producer thread that loops over file names and decodes each in Python stays a generator that
does the same, and the finding says so, naming the first read (python_reads): qmigrate does not
invent TensorFlow decoding for it (issue: "say so and keep it as a generator")."""
import pytest

from qmigrate import api
from qmigrate.engine import Options

FEEDER = '''import threading

import numpy as np
import tensorflow as tf


class Feeder(object):
    def __init__(self, paths, batch_size):
        self.paths = paths
        self.frames = tf.placeholder(tf.float32, [None, 80])
        self.queue = tf.PaddingFIFOQueue(8, [tf.float32], shapes=[[None, 80]])
        self.enqueue = self.queue.enqueue([self.frames])
        self.inputs = self.queue.dequeue_many(batch_size)

    def start(self, sess):
        threading.Thread(target=self.feed, args=(sess,)).start()

    def feed(self, sess):
        while True:
            for path in self.paths:
                sess.run(self.enqueue, feed_dict={self.frames: %s})

    def _load(self, path):
        return np.load(path)
'''


@pytest.mark.parametrize("value,read", [("np.load(path)", "np.load"), ("self._load(path)", "np.load"),
                                        ("np.zeros([int(path[-1]), 80])", None)])
def test_python_decoding_is_said_and_kept(tmp_path, value, read):
    path = tmp_path / "feeder.py"
    path.write_text(FEEDER % value)
    result, = api.migrate([str(path)], Options(unsafe=True), jobs=1)
    assert result.changed
    fed = next(d for d in result.diagnostics if d.code == "QM308")
    if read is None:
        assert "decodes the data in Python" not in fed.message
    else:
        assert "it reads and decodes the data in Python (`%s(...)`, line " % read in fed.message
        assert "qmigrate does not invent it" in fed.message
        assert "%s(" % read in result.new_source.decode()  # still read in the generator
