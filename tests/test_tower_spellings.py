"""Tower loops spelled over a list of devices: found like `range` loops, sharded when they have an index."""
import textwrap

from qmigrate import api
from qmigrate.engine import Options

INPUTS = textwrap.dedent("""
    import tensorflow as tf
    from tensorflow.contrib import slim

    def inputs(files):
        queue = tf.train.string_input_producer(files)
        reader = tf.TFRecordReader()
        _, record = reader.read(queue)
        return tf.train.batch([record], batch_size=8)
    """)


def _migrate(tmp_path, body, **options):
    path = tmp_path / "towers.py"
    path.write_text(INPUTS + textwrap.dedent(body))
    [result] = api.migrate([str(path)], Options(**options))
    return result, {d.code: d for d in result.diagnostics}, (result.new_source or b"").decode()


SHARED_ENUMERATE = """
    def towers(files, devices):
        records = inputs(files)
        sizes = []
        for i, device in enumerate(devices):
            with tf.device(device):
                sizes.append(tf.size(records))
        return sizes
    """


def test_enumerated_devices_share_a_batch_until_unsafe_shards_it(tmp_path):
    _, codes, _ = _migrate(tmp_path, SHARED_ENUMERATE)
    assert not codes["QM901"].fixed
    _, codes, new = _migrate(tmp_path, SHARED_ENUMERATE, unsafe=True)
    assert codes["QM901"].fixed
    assert "records = inputs(files, num_shards=len(devices), shard_index=i)" in new


def test_a_prefetch_queue_over_enumerated_devices_is_sharded(tmp_path):
    _, codes, new = _migrate(tmp_path, """
    def towers(files, devices):
        records = inputs(files)
        queue = slim.prefetch_queue.prefetch_queue([records], capacity=2 * len(devices))
        sizes = []
        for i, device in enumerate(devices):
            with tf.device(device):
                batch = queue.dequeue()
                sizes.append(tf.size(batch))
        return sizes
    """)
    assert codes["QM401"].fixed
    assert "batch = inputs(files, num_shards=len(devices), shard_index=i)" in new


def test_towers_without_an_index_are_reported_not_sharded(tmp_path):
    body = """
    def towers(files, devices):
        records = inputs(files)
        sizes = []
        for device in devices:
            with tf.device(device):
                sizes.append(tf.size(records))
        return sizes
    """
    _, codes, new = _migrate(tmp_path, body, unsafe=True)
    assert not codes["QM901"].fixed and "no index to shard by" in codes["QM901"].message
    assert "for device in devices:\n        with tf.device(device):\n            sizes.append(tf.size(records))" in new

    _, codes, new = _migrate(tmp_path, """
    def towers(files, devices):
        records = inputs(files)
        queue = slim.prefetch_queue.prefetch_queue([records], capacity=2 * len(devices))
        sizes = []
        for device in devices:
            with tf.device(device):
                batch = queue.dequeue()
                sizes.append(tf.size(batch))
        return sizes
    """)
    assert not codes["QM401"].fixed and "no index to shard by" in codes["QM401"].message


def test_a_loop_on_one_fixed_device_is_no_tower_loop(tmp_path):
    _, codes, _ = _migrate(tmp_path, """
    def steps(files, epochs):
        records = inputs(files)
        sizes = []
        for epoch in epochs:
            with tf.device('/cpu:0'):
                sizes.append(tf.size(records))
        return sizes
    """)
    assert "QM901" not in codes


PREFETCHED = """
    def towers(files, num_gpus):
        records = inputs(files)
        queue = slim.prefetch_queue.prefetch_queue([records]%s)
        sizes = []
        for i in range(num_gpus):
            with tf.device('/gpu:%%d' %% i):
                batch = queue.dequeue()
                sizes.append(tf.size(batch))
        return sizes
    """


def test_one_shared_iterator_prefetches_what_the_prefetch_queue_held(tmp_path):
    # Several towers take a batch each per step from the one iterator: prefetch(1) made each step
    # wait for the next batch (bench/epoch_stall_bench.py), so it prefetches the queue's capacity.
    for capacity, passed in ((", capacity=2 * num_gpus", "2 * num_gpus"), ("", "8"), (", 3", "3")):
        _, _, new = _migrate(tmp_path, PREFETCHED % capacity, tower_strategy="shared-iterator")
        assert "def inputs(files, shared_iterators=None, prefetch_batches=1):" in new
        assert ".prefetch(prefetch_batches)" in new
        assert "inputs(files, shared_iterators=input_iterators, prefetch_batches=%s)" % passed in new, new
