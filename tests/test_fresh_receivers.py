"""A method that reads a reader its object holds migrates when each of its calls, in every module
of the run, is on an object made for that call alone (qmigrate/fresh_receivers.py); an unread
reader beside the migrated pipeline goes with it (qmigrate/dead_readers.py, also
tests/test_dead_readers.py)."""
import ast
import textwrap

import pytest

from qmigrate import api
from qmigrate.fresh_receivers import each_on_a_new_object

READER = '''\
import tensorflow as tf


class Reader(object):
    def __init__(self, path, batch_size):
        self.path, self.batch_size = path, batch_size
        self.reader = tf.TFRecordReader()

    def feed(self):
        queue = tf.train.string_input_producer([self.path])
        local_reader = tf.TFRecordReader()
        _, serialized = self.reader.read(queue)
        image = tf.decode_raw(serialized, tf.uint8)
        return tf.train.batch([image], self.batch_size)
'''
TRAIN = '''\
import tensorflow as tf
from reader import Reader


def main(a_path, b_path):
%s
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        sess.run([a, b])
        coord.request_stop()
        coord.join(threads)
'''
FRESH = '''\
    x_reader = Reader(a_path, 4)
    y_reader = Reader(b_path, 4)
    a = x_reader.feed()
    b = y_reader.feed()'''


def _fresh(text, classes=("Reader",)):
    return each_on_a_new_object(ast.parse(textwrap.dedent(text)), "feed", set(classes))


def test_calls_each_on_an_object_made_for_them_are_proven():
    assert _fresh("def f():\n" + FRESH)
    assert _fresh("r = reader.Reader(1)\nx = r.feed()")  # a module's own, through its module
    assert _fresh("def f():\n    return Reader(1).feed(), Other(2).feed()", ("Reader", "Other"))  # made there


@pytest.mark.parametrize("text", [
    "def f():\n    r = Reader(1)\n    a = r.feed()\n    b = r.feed()",  # two calls on one object
    "def f(r):\n    return r.feed()",  # an object from elsewhere
    "def f(r):\n    r = Reader(1)\n    return r.feed()",  # a parameter bound again: two bindings
    "def f():\n    r = Other(1)\n    return r.feed()",  # an object of another class
    "def f():\n    return make().feed()",  # made by a call of anything else
    "def f():\n    for _ in range(2):\n        Reader(1).feed()",  # in a loop
    "def f():\n    r = Reader(1)\n    for _ in range(2):\n        r.feed()",  # a call in a loop
    "for p in paths:\n    r = Reader(p)\n    r.feed()",  # made in a loop
    "def f():\n    r = Reader(1)\n    g = r.feed\n    return g(), g()",  # the method read, not called
    "def f():\n    r = Reader(1)\n    return getattr(r, 'feed')()",  # named in a string
    "def f():\n    global r\n    r = Reader(1)\n    return r.feed()",  # a global others may rebind
    "def f():\n    r = Reader(1)\n    return [r.feed() for _ in range(2)]",  # in a comprehension
    "def f():\n    r = Reader(1)\n    return self_feed()",  # no call of the method at all
    "def f():\n    r = Reader(1)\n    a = r.feed()\n    return a, r.images",  # the object read otherwise too
    "def f():\n    r = Reader(1)\n    a = r.feed()\n    g(r)",  # handed to other code
])
def test_anything_else_is_not(text):
    assert not _fresh(text)


def _run(tmp_path, calls):
    (tmp_path / "reader.py").write_text(READER)
    (tmp_path / "train.py").write_text(TRAIN % calls)
    return {r.path.rsplit("/", 1)[-1]: r for r in api.migrate([str(tmp_path)], jobs=1)}


def test_two_readers_fed_once_each_in_another_module_migrate_with_the_plumbing(tmp_path):
    results = _run(tmp_path, FRESH)
    reader, train = results["reader.py"], results["train.py"]
    assert reader.changed and all(d.fixed for d in reader.diagnostics)
    new = reader.new_source.decode()
    assert "TFRecordReader" not in new and "local_reader" not in new  # the unread one went too
    assert "make_one_shot_iterator" in new
    assert "start_queue_runners" not in train.new_source.decode()


def test_one_reader_fed_twice_in_another_module_stays_with_the_reason(tmp_path):
    results = _run(tmp_path, "    x_reader = Reader(a_path, 4)\n    a = x_reader.feed()\n    b = x_reader.feed()")
    reader = results["reader.py"]
    assert not reader.changed
    reasons = [d.message for d in reader.diagnostics if d.code in ("QM201", "QM301") and d.line != 11]
    assert len(reasons) == 2 and all("train.py:7, train.py:8" in r and "feed()" in r for r in reasons)
