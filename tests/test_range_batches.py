"""A range producer dequeued several indices at a time becomes a batched range dataset
(range_producers, synth.range_statements); what its dequeue does not say it keeps, with the
reason. (TF behaviour: tests/test_tf_behaviour.py, range_batches.)"""
import pytest

from qmigrate import api

SHAPE = '''import tensorflow as tf


def indices(count, n):
    queue = tf.train.range_input_producer(count, shuffle=False, num_epochs=1)
    taken = {dequeue}
    return taken
'''


def _migrated(tmp_path, dequeue):
    path = tmp_path / "indices.py"
    path.write_text(SHAPE.format(dequeue=dequeue))
    result, = api.migrate([str(path)], jobs=1)
    return result


@pytest.mark.parametrize("dequeue,stage,named", [
    ("queue.dequeue_many(n)", "dataset.apply(tf.contrib.data.batch_and_drop_remainder(n))", ""),
    ("queue.dequeue_many(n, name='taken')", "dataset.apply(tf.contrib.data.batch_and_drop_remainder(n))",
     ", name='taken'"),
    ("queue.dequeue_up_to(n)", "dataset.batch(n)", ""),
    ("queue.dequeue(name='taken')", None, ", name='taken'"),
])
def test_each_dequeue_is_its_stage(tmp_path, dequeue, stage, named):
    result = _migrated(tmp_path, dequeue)
    new = result.new_source.decode()
    assert "range_input_producer" not in new and "dequeue" not in new
    assert ("    dataset = %s\n" % stage in new) == (stage is not None)
    assert "    taken = tf.cast(dataset.make_one_shot_iterator().get_next(), tf.int32%s)\n" % named in new


@pytest.mark.parametrize("dequeue,reason", [
    ("queue.dequeue_many()", "its dequeue_many() gives no number of indices"),
    ("queue.dequeue_many(*n)", "its dequeue_many() takes arguments qmigrate cannot read"),
    ("queue.dequeue_up_to(n, 'a', 'b')", "its dequeue_up_to() takes arguments qmigrate cannot read"),
])
def test_a_dequeue_it_cannot_read_stays(tmp_path, dequeue, reason):
    result = _migrated(tmp_path, dequeue)
    assert not result.changed
    found, = [d for d in result.diagnostics if d.code == "QM104"]
    assert reason in found.message
