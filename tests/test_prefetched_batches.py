"""A prefetch queue over a batch the migration made into a dataset becomes that dataset's
iterator, its dequeues get_next() calls, when every use is proven (qmigrate/prefetched_batches.py;
the drain under TF 1.8 and 1.15 is tests/test_tf_behaviour.py's
test_a_prefetch_queue_of_a_batch_becomes_its_iterator)."""
import pytest

from qmigrate import api

TRAIN = '''\
import tensorflow as tf
from deployment import model_deploy

slim = tf.contrib.slim


def main(files, num_clones, batch_size):
    with tf.device('/cpu:0'):
        queue = tf.train.string_input_producer(files)
        reader = tf.TFRecordReader()
        _, record = reader.read(queue)
        x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([4], tf.float32)})['x']
        images, labels = tf.train.batch([x, tf.reduce_sum(x)], batch_size=batch_size)
%(between)s        batch_queue = slim.prefetch_queue.prefetch_queue([images, labels]%(options)s)

    def clone_fn(batch_queue):
        images, labels = batch_queue.dequeue()
        return tf.reduce_mean(images) + tf.reduce_mean(labels)
%(after)s
    return model_deploy.create_clones(num_clones, clone_fn, [batch_queue])
'''
DEPLOY = '''\
import tensorflow as tf


def create_clones(num_clones, model_fn, args=None, kwargs=None):
    clones = []
    args = args or []
    kwargs = kwargs or {}
    for i in range(num_clones):
        with tf.device('/gpu:%%d' %% i):
            clones.append(model_fn(*args, **kwargs))
%(extra)s    return clones
'''
ONE_HOT = "        labels = slim.one_hot_encoding(tf.cast(labels, tf.int64), 10)\n"


def _run(tmp_path, between="", options=", capacity=2 * num_clones", after="", extra=""):
    (tmp_path / "deployment").mkdir()
    (tmp_path / "deployment" / "__init__.py").write_text("")
    (tmp_path / "deployment" / "model_deploy.py").write_text(DEPLOY % dict(extra=extra))
    (tmp_path / "train.py").write_text(TRAIN % dict(between=between, options=options, after=after))
    results = {r.path.rsplit("/", 1)[-1]: r for r in api.migrate([str(tmp_path)], jobs=1)}
    return results["train.py"]


def _prefetch_finding(result):
    [finding] = [d for d in result.diagnostics if d.code == "QM401"]
    return finding


def test_a_queue_handed_to_clones_through_another_module_becomes_the_iterator(tmp_path):
    result = _run(tmp_path, between=ONE_HOT)
    assert _prefetch_finding(result).fixed and not result.remaining
    new = result.new_source.decode()
    assert "prefetch_queue" not in new
    assert "batch_queue.get_next()" in new and ".dequeue()" not in new
    assert "def prepare_batch(images, labels):\n            labels = slim.one_hot_encoding(" in new
    assert "dataset = dataset.prefetch(2 * num_clones)\n        batch_queue = dataset.make_one_shot_iterator()" in new


def test_without_code_on_the_batch_no_map_is_added_and_the_default_capacity_is_prefetched(tmp_path):
    new = _run(tmp_path, options="").new_source.decode()
    assert "prepare_batch" not in new and "dataset.map(prepare" not in new
    assert "dataset = dataset.prefetch(8)\n" in new


@pytest.mark.parametrize("kwargs,reason", [
    (dict(extra="    print(args)\n"), "used other than by `batch_queue.dequeue()`"),
    (dict(after="    clone_fn(None)\n"), "used other than by `batch_queue.dequeue()`"),
    (dict(after="    tf.summary.scalar('full', batch_queue.size())\n"), "it is used as `batch_queue.size`"),
    (dict(after="    tf.summary.histogram('labels', labels)\n"), "`labels`, a tensor the prefetch queue takes, "
                                                                   "is also read outside"),
    (dict(between="        labels = slim.fully_connected(labels[:, None], 3)\n"), "calls `slim.fully_connected`"),
    (dict(between="        labels = labels + tf.get_variable('bias', [])\n"), "calls `tf.get_variable`"),
    (dict(between="        labels = labels * scale(2)\n"), "calls `scale`, which qmigrate does not read"),
    (dict(options=", dynamic_pad=True"), "pads its batches"),
    (dict(between="        labels = labels * batch_size\n"), "reads `batch_size`, a parameter of main()"),
])
def test_anything_not_proven_keeps_the_queue_with_the_reason(tmp_path, kwargs, reason):
    result = _run(tmp_path, **kwargs)
    finding = _prefetch_finding(result)
    assert not finding.fixed
    assert reason in finding.message
    assert "prefetch_queue.prefetch_queue(" in result.new_source.decode()  # the batching still migrates
