"""Queue runners of a helper module (a `run_session(sess)` that starts them) run in the program of
whichever script imports it: they stay while any program importing that module still builds
queues, even when the module's own imports build none (api._run_with_queues)."""
import os

from qmigrate import api

UTILS = '''import tensorflow as tf


def run_session(sess, op, steps):
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    for _ in range(steps):
        sess.run(op)
    coord.request_stop()
    coord.join(threads)
'''

MIGRATED = '''import tensorflow as tf


def batches(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(value, {'x': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch([parsed['x']], batch_size)
'''

LEFT = '''import tensorflow as tf


def numbers(batch_size):
    queue = tf.FIFOQueue(100, [tf.int64], shapes=[[]])
    fill = queue.enqueue_many([tf.range(100, dtype=tf.int64)])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [fill], cancel_op=queue.close()))
    return queue.dequeue_many(batch_size)
'''

MAIN = '''import tensorflow as tf

import %s
import utils


def main():
    x = %s
    with tf.Session() as sess:
        utils.run_session(sess, x, 10)
'''


def _run(tmp_path, main):
    for name, text in (("utils.py", UTILS), ("reading.py", MIGRATED), ("left.py", LEFT), ("main.py", main)):
        (tmp_path / name).write_text(text)
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)], jobs=1)}


def test_a_helpers_queue_runners_stay_while_a_script_importing_it_builds_queues(tmp_path):
    results = _run(tmp_path, MAIN % ("left", "left.numbers(4)"))
    assert results["reading.py"].changed  # the run migrated a pipeline
    assert not results["left.py"].changed  # a queue fed by enqueue_many of a constant stays
    assert not results["utils.py"].changed  # main.py runs its queue runners for left.py's queue


def test_they_go_when_every_program_importing_it_is_free_of_queues(tmp_path):
    results = _run(tmp_path, MAIN % ("reading", "reading.batches(['a.tfrecord'], 4)"))
    assert results["reading.py"].changed
    assert results["utils.py"].changed and b"start_queue_runners" not in results["utils.py"].new_source


# A script that loads its input module by path at run time (`imp.load_source`, as 2016-era
# evaluation scripts do): which module it loads is unknown, so while any module of the run still
# builds queues its queue runners stay (removing them would hang the program on that queue).
LOADING = '''import imp
import sys

import tensorflow as tf


def evaluate(input_path):
    data_input = %s
    x = data_input.numbers(4)
    sess = tf.Session()
    tf.train.start_queue_runners(sess=sess)
    print(sess.run(x))


if __name__ == '__main__':
    evaluate(sys.argv[1])
'''


def test_a_script_loading_modules_by_path_keeps_its_runners_while_a_module_builds_queues(tmp_path):
    for loader in ('imp.load_source("input", input_path)', 'imp.load_module("input", open(input_path), '
                   'input_path, (".py", "r", imp.PY_SOURCE))'):
        results = _run(tmp_path, LOADING % loader)
        assert results["reading.py"].changed  # the run migrated a pipeline
        assert not results["left.py"].changed
        assert not results["main.py"].changed, loader  # it may load left.py, whose queue needs the runners
