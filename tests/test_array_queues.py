"""A hand-built queue filled with the rows of in-memory arrays (`enqueue_many` of NumPy arrays, run
for ever by its QueueRunner) becomes a dataset of those rows (array_queues); its runner goes, and
so does a start of its threads by hand. What the contract does not allow stays, with the reason
(the stanford CS20 queue example's shape, written here anew)."""
import pytest

from qmigrate import api

SCRIPT = '''import numpy as np
import tensorflow as tf

data = 10 * np.random.randn(100, 4) + 1
target = np.random.randint(0, 2, size=100)

queue = tf.FIFOQueue(capacity=50, dtypes=[tf.float32, tf.int32], shapes=[[4], []])
enqueue_op = queue.enqueue_many([data, target])
data_sample, label_sample = queue.dequeue()
qr = tf.train.QueueRunner(queue, [enqueue_op] * 4)
with tf.Session() as sess:
    coord = tf.train.Coordinator()
    enqueue_threads = qr.create_threads(sess, coord=coord, start=True)
    for step in range(100):
        print(sess.run([data_sample, label_sample]))
    coord.request_stop()
    coord.join(enqueue_threads)
'''

RUNNER_STARTED_ALONE = SCRIPT.replace("    enqueue_threads = qr.create_threads(sess, coord=coord, start=True)\n",
                                      "    qr.create_threads(sess, coord=coord, start=True)\n").replace(
    "    coord.join(enqueue_threads)\n", "    coord.join()\n")


def _migrated(tmp_path, text):
    path = tmp_path / "inputs.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    return result


def _queue_reason(tmp_path, text):
    result = _migrated(tmp_path, text)
    assert not result.changed
    return next(d for d in result.diagnostics if d.code == "QM307" and "FIFOQueue" in d.message)


def test_a_script_that_starts_its_runner_by_hand_migrates(tmp_path):
    result = _migrated(tmp_path, SCRIPT)
    new = result.new_source.decode()
    assert ("dataset = tf.data.Dataset.from_tensor_slices((tf.convert_to_tensor(data, dtype=tf.float32), "
            "tf.convert_to_tensor(target, dtype=tf.int32)))\ndataset = dataset.repeat()\n") in new
    assert "data_sample, label_sample = dataset.make_one_shot_iterator().get_next()\n" in new
    assert "    enqueue_threads = []\n" in new
    for gone in ("FIFOQueue", "enqueue_many", "dequeue", "QueueRunner", "create_threads"):
        assert gone not in new
    assert all(d.fixed or d.note for d in result.diagnostics)
    compile(new, "inputs.py", "exec")


def test_a_start_of_its_own_goes(tmp_path):
    new = _migrated(tmp_path, RUNNER_STARTED_ALONE).new_source.decode()
    assert "create_threads" not in new and "qr" not in new
    # The coordinator only served the runner's threads: it goes too.
    assert "with tf.Session() as sess:\n    for step in range(100):\n" in new


def test_each_start_of_its_threads_goes(tmp_path):
    """Two sessions each start the runner's threads with the same line: each becomes `[]`."""
    text = SCRIPT + SCRIPT[SCRIPT.index("with tf.Session() as sess:"):]
    new = _migrated(tmp_path, text).new_source.decode()
    assert new.count("    enqueue_threads = []\n") == 2
    assert "create_threads" not in new
    compile(new, "inputs.py", "exec")


def test_rows_only_fetched_to_python_are_reported_as_the_queue_replaced(tmp_path):
    """Every dequeue fetched by session.run (QM003's sign of a work list): the rows were data all the
    same; the finding is the hand-built queue's, fixed, not a note that says it was left alone."""
    text = SCRIPT.replace("data_sample, label_sample = queue.dequeue()", "rows = queue.dequeue_many(10)").replace(
        "print(sess.run([data_sample, label_sample]))", "print(sess.run(rows))")
    result = _migrated(tmp_path, text)
    assert "rows = list(dataset.make_one_shot_iterator().get_next())" in result.new_source.decode()
    found = [(d.code, d.fixed) for d in result.diagnostics if "FIFOQueue" in d.message]
    assert found == [("QM307", True)]


def test_its_output_migrates_no_further(tmp_path):
    first = _migrated(tmp_path, SCRIPT).new_source.decode()
    again = _migrated(tmp_path, first)
    assert not again.changed
    assert all(d.note for d in again.diagnostics)


@pytest.mark.parametrize("old,new,reason", [
    # The runner is handed on: whoever gets it may start it, or do more.
    ("    enqueue_threads = qr.create_threads(sess, coord=coord, start=True)\n",
     "    enqueue_threads = start(qr, sess, coord)\n",
     "its QueueRunner `qr` is used for more than starting its threads"),
    # The enqueue op is also run by hand: a run puts all the rows in once more.
    ("    for step in range(100):\n", "    sess.run(enqueue_op)\n    for step in range(100):\n",
     "its enqueue op `enqueue_op` is used for more than the QueueRunner"),
    # The queue is dequeued twice: two readers share its rows.
    ("data_sample, label_sample = queue.dequeue()\n",
     "data_sample, label_sample = queue.dequeue()\nsecond = queue.dequeue()\n",
     "it is not dequeued once in its block after its enqueue op"),
    # Its size is read.
    ("qr = tf", "size = queue.size()\nqr = tf", "`queue` is used for more than its enqueue op, its dequeue and its "
                                                "QueueRunner (`size = queue.size()`)"),
    # Dequeued in a nested block: the dataset would be built where the queue was, read there.
    ("data_sample, label_sample = queue.dequeue()\n",
     "with tf.device('/cpu:0'):\n    data_sample, label_sample = queue.dequeue()\n",
     "its `queue.dequeue(...)` is in a block nested in its own"),
    ("data_sample, label_sample = queue.dequeue()\n", "data_sample, label_sample = list(queue.dequeue())\n",
     "its `queue.dequeue(...)` is part of a larger statement"),
    # Its dtypes are computed: which dtype each array is converted to cannot be read.
    ("dtypes=[tf.float32, tf.int32]", "dtypes=DTYPES", "its `dtypes=` does not list one dtype per array it takes in, each a TensorFlow dtype"),
    # Started in a function of its own: that function may be called any number of times, or never.
    ("with tf.Session() as sess:\n", "def begin(sess, coord):\n    return qr.create_threads(sess, coord=coord)\n\n\n"
                                     "with tf.Session() as sess:\n",
     "its QueueRunner `qr` is used for more than starting its threads"),
])
def test_what_the_contract_does_not_allow_stays_with_its_reason(tmp_path, old, new, reason):
    assert old in SCRIPT
    found = _queue_reason(tmp_path, SCRIPT.replace(old, new, 1))
    assert reason in found.message
    assert "from_tensor_slices" in found.message  # the to-do says how to write it


@pytest.mark.parametrize("old,new", [
    # A random op draws new rows at every run of the enqueue op: not rows made once.
    ("enqueue_op = queue.enqueue_many([data, target])",
     "enqueue_op = queue.enqueue_many([tf.random_normal([100, 4]), target])"),
    # Named components: a dict of rows, which this rewrite does not write.
    ("shapes=[[4], []])", "shapes=[[4], []], names=['x', 'y'])"),
    # The enqueue op is made in a larger statement: not the shape this rewrite reads.
    ("enqueue_op = queue.enqueue_many([data, target])", "ops = [queue.enqueue_many([data, target])]"),
    # Shared with other sessions by name: a hand-off, not input.
    ("shapes=[[4], []])", "shapes=[[4], []], shared_name='rows')"),
])
def test_other_queues_keep_the_reasons_they_had(tmp_path, old, new):
    assert old in SCRIPT
    found = _queue_reason(tmp_path, SCRIPT.replace(old, new, 1))
    assert "from_tensor_slices" not in found.message
