"""Queue-runner plumbing is judged per scope: a `coord` or `threads` of one function is not the one
of another (rules/queue_runners.py, _PlumbingFinder's keys), and each call's finding says what
became of that call (engine.remove_plumbing matches them by the functions around them)."""
from qmigrate import api

_PIPELINE = '''\
import threading

import tensorflow as tf


def batches(files):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TextLineReader().read(queue)
    return tf.train.batch([value], 2)
'''

_TRAIN = '''

def train(files):
    batch = batches(files)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        print(sess.run(batch))
        coord.request_stop()
        coord.join(threads)
'''


def _migrated(tmp_path, text):
    path = tmp_path / "program.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result, result.new_source.decode()


def test_a_join_of_something_else_of_the_same_name_in_another_function_stays(tmp_path):
    # Found in review: names were the module's, so this thread's join() went with the runners.
    other = '''

def save_in_background(path):
    coord = threading.Thread(target=print, args=(path,))
    coord.join()
'''
    result, output = _migrated(tmp_path, _PIPELINE + _TRAIN + other)
    assert "    coord.join()\n" in output
    assert "start_queue_runners" not in output and "coord.join(threads)" not in output


def test_a_coordinator_kept_in_one_function_leaves_the_other_s_to_go(tmp_path):
    # evaluate() hands its coordinator an exception: it stays there, and its reason is said there.
    evaluate = '''

def evaluate(files):
    batch = batches(files)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            print(sess.run(batch))
        except Exception as e:
            coord.request_stop(e)
        coord.join(threads)
'''
    result, output = _migrated(tmp_path, _PIPELINE + _TRAIN + evaluate)
    assert output.count("tf.train.Coordinator()") == 1 and "threads = []" in output
    train_start = output.index("def train")
    assert "Coordinator" not in output[train_start:output.index("def evaluate")]
    coordinators = {d.line: d for d in result.diagnostics if d.code == "QM502"}
    train_line, evaluate_line = sorted(coordinators)
    assert coordinators[train_line].fixed
    assert not coordinators[evaluate_line].fixed
    assert "handed an exception" in coordinators[evaluate_line].message


def test_a_closure_s_use_of_the_enclosing_coordinator_counts_as_the_enclosing_function_s(tmp_path):
    # worker() reads train()'s coord: it is used beyond the runners, and stays.
    closure = '''

def watched(files):
    batch = batches(files)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)

        def worker():
            while not coord.should_stop():
                coord.wait_for_stop(1)
        thread = threading.Thread(target=worker)
        thread.start()
        print(sess.run(batch))
        coord.request_stop()
        coord.join(threads)
'''
    result, output = _migrated(tmp_path, _PIPELINE + closure)
    assert "coord = tf.train.Coordinator()" in output and "coord.should_stop()" in output
    assert "start_queue_runners" not in output
