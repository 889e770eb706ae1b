"""A hand-built queue's runner given n copies of one enqueue op made by a comprehension
(`[queue.enqueue([x, y]) for _ in range(n)]`): n threads enqueueing the same tensors, as
`[op] * n` (handbuilt._copies); a dequeue in a function defined beside the queue stays, with why."""
from qmigrate import api

SHAPE = '''import tensorflow as tf


def inputs(files, batch_size, n=4):
    filename_queue = tf.train.string_input_producer(files)
    _, record = tf.FixedLengthRecordReader(record_bytes=4).read(filename_queue)
    value = tf.decode_raw(record, tf.uint8)
    queue = tf.RandomShuffleQueue(capacity=100, min_after_dequeue=50, dtypes=[tf.uint8], shapes=[[4]])
    {ops}
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, {listed}))
    {take}
'''


def _migrated(tmp_path, ops, listed="ops", take="return queue.dequeue_many(batch_size)"):
    path = tmp_path / "inputs.py"
    path.write_text(SHAPE.format(ops=ops, listed=listed, take=take))
    result, = api.migrate([str(path)], jobs=1)
    return result


def test_copies_of_one_enqueue_op_migrate_as_that_op_times_n(tmp_path):
    copies = _migrated(tmp_path, "ops = [queue.enqueue([value]) for _ in range(n)]")
    times = _migrated(tmp_path, "enqueue = queue.enqueue([value])", listed="[enqueue] * n")
    assert copies.changed and not [d for d in copies.diagnostics if not d.fixed]
    assert copies.new_source == times.new_source
    assert b"num_parallel_calls=n" in copies.new_source


def test_copies_that_read_the_loop_variable_stay(tmp_path):
    result = _migrated(tmp_path, "ops = [queue.enqueue([value + i]) for i in range(n)]")
    assert not result.changed


def test_a_dequeue_in_a_function_defined_beside_the_queue_says_why_it_stays(tmp_path):
    result = _migrated(tmp_path, "enqueue = queue.enqueue([value])", listed="[enqueue] * n",
                       take="def build():\n        return queue.dequeue_many(batch_size)\n    return build")
    assert not result.changed
    reasons = [d.message for d in result.diagnostics if "RandomShuffleQueue" in d.message]
    assert reasons and "it is dequeued in build(), a function defined in its block, which may be called more " \
                       "than once" in reasons[0]
