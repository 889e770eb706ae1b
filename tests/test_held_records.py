"""Records an object makes in __init__ and another method batches (qmigrate/held_records.py):
migrated across the modules of a run when every call is proven, left with the reason otherwise.
What the migrated reader gives is drained under TF 1.8, 1.15 and 2 by tests/test_tf_behaviour.py
(testdata/single/held_records)."""
import pytest

from qmigrate import api

READER = '''\
import tensorflow as tf


def read_pair(row, size, scale):
    image = tf.image.decode_png(tf.read_file(row[0]), channels=3)
    return tf.image.resize_images(image, [size, size]) * scale, row[1]


class ImageReader(object):
    def __init__(self, paths, labels, size, scale):
        self.queue = tf.train.slice_input_producer([paths, labels], shuffle=size > 0)
        self.image, self.label = read_pair(self.queue, size, scale)

    def dequeue(self, num_elements):
        image_batch, label_batch = tf.train.batch([self.image, self.label], num_elements)
        return image_batch, label_batch
'''
TRAIN = '''\
import tensorflow as tf
from reader import ImageReader


def main(paths, labels, batch_size):
%s
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        sess.run(image_batch)
        coord.request_stop()
        coord.join(threads)
'''
FED_ONCE = '''\
    reader = ImageReader(paths, labels, 32, 1.0)
    image_batch, label_batch = reader.dequeue(batch_size)'''
EVALUATE = '''\
import tensorflow as tf
from reader import ImageReader


def main(paths, labels):
    reader = ImageReader(paths, labels, 0, 1.0)
    image, label = reader.image, reader.label
    with tf.Session() as sess:
        threads = tf.train.start_queue_runners(sess=sess)
        sess.run(image)
'''


def _run(tmp_path, calls=FED_ONCE, evaluate=None, reader=READER):
    (tmp_path / "reader.py").write_text(reader)
    (tmp_path / "train.py").write_text(TRAIN % calls)
    if evaluate is not None:
        (tmp_path / "evaluate.py").write_text(evaluate)
    return {r.path.rsplit("/", 1)[-1]: r for r in api.migrate([str(tmp_path)], jobs=1)}


def test_a_reader_batched_by_a_train_script_migrates_with_the_plumbing(tmp_path):
    results = _run(tmp_path)
    reader = results["reader.py"]
    assert reader.changed and all(d.fixed for d in reader.diagnostics)
    new = reader.new_source.decode()
    assert "self.queue = dataset" in new and "dataset = self.queue" in new
    assert "self.image, self.label =" not in new  # nothing reads the records one at a time
    assert "start_queue_runners" not in results["train.py"].new_source.decode()


def test_records_read_one_at_a_time_elsewhere_are_bound_in_init_too(tmp_path):
    results = _run(tmp_path, evaluate=EVALUATE)
    new = results["reader.py"].new_source.decode()
    assert "self.image, self.label = dataset.make_one_shot_iterator().get_next()" in new
    assert "start_queue_runners" not in results["evaluate.py"].new_source.decode()


def _refused(results, text):
    reader = results["reader.py"]
    assert not reader.changed
    reasons = [d.message for d in reader.diagnostics if d.code in ("QM102", "QM301")]
    assert len(reasons) == 2 and all("batched by dequeue()" in r and text in r for r in reasons), reasons


@pytest.mark.parametrize("calls,text", [
    # two batches of one object's records: the queue shared them
    (FED_ONCE + "\n    more, _ = reader.dequeue(batch_size)", "train.py:"),
    # the object is read for more than its batches
    (FED_ONCE + "\n    print(reader.image)", "train.py:"),
    # a batch size fed at each step cannot size a dataset's batch
    ("    reader = ImageReader(paths, labels, 32, 1.0)\n"
     "    image_batch, label_batch = reader.dequeue(tf.placeholder(tf.int32, []))", "placeholder"),
    # a random op the per-record code reads: the map function would capture it
    ("    reader = ImageReader(paths, labels, 32, tf.random_uniform([]))\n"
     "    image_batch, label_batch = reader.dequeue(batch_size)", "random"),
], ids=["dequeued_twice", "read_otherwise", "fed_batch_size", "random_argument"])
def test_what_other_modules_do_with_the_object_can_keep_it(tmp_path, calls, text):
    _refused(_run(tmp_path, calls), text)


def test_the_queue_named_by_another_module_stays(tmp_path):
    _refused(_run(tmp_path, FED_ONCE + "\n    size = reader.queue[0]"), "`.queue`")


def test_a_batching_method_called_on_self_stays(tmp_path):
    reader = READER + "\n    def twice(self, n):\n        return self.dequeue(n), self.dequeue(n)\n"
    _refused(_run(tmp_path, reader=reader), "dequeue()")


def test_the_queue_read_by_another_method_stays(tmp_path):
    reader = READER + "\n    def rows(self):\n        return self.queue\n"
    _refused(_run(tmp_path, reader=reader), "`self.queue` is read outside")
