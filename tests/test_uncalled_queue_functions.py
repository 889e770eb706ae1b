"""Queue code left in a top-level function that no code of the run names keeps no program's queue
runners (uncalled_queues, api's _standing_for): a script that imports the module for its other
helpers loses them once its own input is migrated. Named anywhere else (a call, a reference in
its own module, a decorator that may register it), the runners stay, as before."""
import os
import textwrap

import pytest

from qmigrate import api, uncalled_queues

HELPERS = '''\
import tensorflow as tf


def inputs(files):
    queue = tf.train.string_input_producer(files, shuffle=False)
    reader = tf.TFRecordReader()
    _, record = reader.read(queue)
    return tf.train.batch([record], 4)


def queued_batches(input_queue):
    record = input_queue.dequeue()
    return tf.train.batch([record], 4)
'''

EVALUATE = '''\
import tensorflow as tf

import helpers


def main(files):
    batch = helpers.inputs(files)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        sess.run(batch)
        coord.request_stop()
        coord.join(threads)
'''

TRAIN = '''\
import tensorflow as tf

import helpers


def main(queue):
    batch = helpers.queued_batches(queue)
    with tf.Session() as sess:
        tf.train.start_queue_runners(sess=sess)
        sess.run(batch)
'''


def _run(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}


def _left(result):
    return [d for d in result.diagnostics if not d.fixed and not d.note]


def test_a_script_that_never_calls_the_queue_function_loses_its_runners(tmp_path):
    results = _run(tmp_path, {"helpers.py": HELPERS, "evaluate.py": EVALUATE})
    assert [d.code for d in _left(results["helpers.py"])] == ["QM301"]  # queued_batches stays
    assert not _left(results["evaluate.py"])
    new = results["evaluate.py"].new_source.decode()
    assert "start_queue_runners" not in new and "Coordinator" not in new


def test_a_script_that_calls_it_keeps_them_and_says_where_the_queue_is(tmp_path):
    results = _run(tmp_path, {"helpers.py": HELPERS, "evaluate.py": EVALUATE, "train.py": TRAIN})
    kept = _left(results["train.py"])
    assert [d.code for d in kept] == ["QM501"]
    assert "queue code is left in a file of its program: helpers.py:13 (QM301)" in kept[0].message
    # evaluate.py's program holds no caller of queued_batches: its runners go all the same
    assert not _left(results["evaluate.py"])


@pytest.mark.parametrize("change", [
    # named by its own module: a function of it may call it
    lambda text: text + "\n\ndef both(files, queue):\n    return inputs(files), queued_batches(queue)\n",
    # a decorator may register it
    lambda text: text.replace("def queued_batches", "@register\ndef queued_batches"),
    # queue code at module level builds queues when the module is imported
    lambda text: text + "\nSHARED = tf.FIFOQueue(10, tf.string)\n",
])
def test_what_keeps_the_runners_as_before(tmp_path, change):
    results = _run(tmp_path, {"helpers.py": change(HELPERS), "evaluate.py": EVALUATE})
    assert [d.code for d in _left(results["evaluate.py"])] == ["QM502", "QM501"]


def test_a_file_with_runners_of_its_own_stands_for_itself(tmp_path):
    own = HELPERS + "\n\ndef start(sess):\n    return tf.train.start_queue_runners(sess=sess)\n"
    results = _run(tmp_path, {"helpers.py": own, "evaluate.py": EVALUATE})
    assert "QM501" in [d.code for d in _left(results["helpers.py"])]


def test_stand_ins_in_isolation():
    import ast

    tree = ast.parse(HELPERS)
    words = {"queued_batches": {"helpers.py", "train.py", "notes.txt"}}
    found = uncalled_queues.stand_ins(
        ["helpers.py"], lambda path: [13], set(), lambda path: tree, lambda name: words.get(name, set()),
        lambda path, name: path != "notes.txt")
    assert found == {"helpers.py": {"train.py"}}
    assert uncalled_queues.stand_ins(["helpers.py"], lambda path: [1], set(), lambda path: tree,
                                     lambda name: (), lambda path, name: True) == {"helpers.py": {"helpers.py"}}
    assert uncalled_queues.stand_ins(["helpers.py"], lambda path: [13], {"helpers.py"}, lambda path: tree,
                                     lambda name: (), lambda path, name: True) == {"helpers.py": {"helpers.py"}}
