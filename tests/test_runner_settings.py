"""A hand-built queue's runner and stages read their settings where the dataset is built, outside
the per-record code: a thread count (or capacity) that the per-record code binds keeps the file,
with the reason. Before, the runner statement, reading such a name, was taken for per-record code
and moved into the map function, whose local the dataset's `num_parallel_calls` then read."""
from qmigrate import api


def _reasons(result):
    return {d.message.split("; not rewritten: ")[1].split("; to do:")[0] for d in result.diagnostics
            if not d.fixed and "not rewritten" in d.message}


SPLIT = '''import tensorflow as tf


def inputs(files, batch_size, mode):
    queue = tf.train.string_input_producer(files)
    _, value = tf.TextLineReader().read(queue)
    x = tf.string_to_number(value)
    if mode == 'train':
        x = x * 2.0
        {train_setting}
    else:
        threads = 1
    if mode == 'train':
        pool = tf.RandomShuffleQueue(capacity=40, min_after_dequeue=20, dtypes=[tf.float32], shapes=[[]])
    else:
        pool = tf.FIFOQueue(40, dtypes=[tf.float32], shapes=[[]])
    enqueue = pool.enqueue([x])
    {between}tf.train.add_queue_runner(tf.train.QueueRunner(pool, [enqueue] * threads))
    xs = pool.dequeue_many(batch_size)
    return xs
'''


def test_a_thread_count_bound_in_the_per_record_code_keeps_the_file(tmp_path):
    # `threads` is bound in the if that is per-record code (it also scales `x`).
    path = tmp_path / "inputs.py"
    path.write_text(SPLIT.format(train_setting="threads = 4", between=""))
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
    assert "`threads`, which the per-record code binds, sets the capacity, shuffle or threads of `pool`; the " \
           "dataset reads it where it is built, outside that code" in _reasons(result)


def test_a_runner_reading_a_per_record_name_after_the_enqueue_keeps_the_file(tmp_path):
    path = tmp_path / "inputs.py"
    text = SPLIT.format(train_setting="pass", between="threads = tf.size(x)\n    ")
    path.write_text(text.replace("    else:\n        threads = 1\n", "    else:\n        x = x + 1.0\n", 1))
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
    assert "the runner of pool reads `threads`, which the per-record code binds" in _reasons(result)


def test_a_thread_count_rebound_before_the_dequeue_keeps_the_file(tmp_path):
    # The dataset is built at the dequeue: it would read the 8, where the runner ran 1 thread.
    path = tmp_path / "inputs.py"
    text = SPLIT.format(train_setting="pass", between="").replace(
        "    xs = pool.dequeue_many(batch_size)\n", "    threads = 8\n    xs = pool.dequeue_many(batch_size)\n")
    path.write_text(text.replace("    else:\n        threads = 1\n", "    else:\n        x = x + 1.0\n", 1)
                    .replace("    x = tf.string_to_number(value)\n", "    x = tf.string_to_number(value)\n    threads = 1\n"))
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
    assert "`threads` is reassigned between the queue and its dequeue" in _reasons(result)


def test_a_thread_count_set_before_the_records_migrates(tmp_path):
    path = tmp_path / "inputs.py"
    text = SPLIT.format(train_setting="pass", between="")
    path.write_text(text.replace("    else:\n        threads = 1\n", "    else:\n        x = x + 1.0\n", 1)
                    .replace("    x = tf.string_to_number(value)\n", "    x = tf.string_to_number(value)\n    threads = 1\n"))
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    assert "dataset.map(parse_record, num_parallel_calls=threads)" in result.new_source.decode()
