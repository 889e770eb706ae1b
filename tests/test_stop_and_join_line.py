"""`coord.request_stop(); coord.join(threads)` on one line is the coordinator's stop and join, as on
two lines: the runners and coordinator go with the last queue (found outside the corpus, where it
said "its thread list `threads` is used for more than join()")."""
import pytest

from qmigrate import api

PROGRAM = '''import tensorflow as tf


def batches(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(value, {'x': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch([parsed['x']], batch_size)


def main(files):
    values = batches(files, 4)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        print(sess.run(values))
        %s
'''


@pytest.mark.parametrize("stop", ["coord.request_stop(); coord.join(threads)",
                                  "coord.request_stop()\n        coord.join(threads)"])
def test_stop_and_join_on_one_line_go_with_the_runners(tmp_path, stop):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM % stop)
    result, = api.migrate([str(path)], jobs=1)
    assert not result.remaining, [d.message for d in result.remaining]
    new = result.new_source.decode()
    assert "Coordinator" not in new and "start_queue_runners" not in new and "join" not in new
    compile(new, "train.py", "exec")


def test_a_line_that_does_more_keeps_the_thread_list_bound_and_empty(tmp_path):
    # It said "its thread list `threads` is used for more than join()" and kept the runners. With
    # no runner left, start_queue_runners returns an empty list: the list stays bound to one, and
    # the line that also reads it stays as it is.
    path = tmp_path / "train.py"
    path.write_text(PROGRAM % "coord.request_stop(); coord.join(threads); print(len(threads))")
    result, = api.migrate([str(path)], jobs=1)
    assert not result.remaining, [d.message for d in result.remaining]
    new = result.new_source.decode()
    assert "start_queue_runners" not in new and "        threads = []\n" in new
    assert "coord.request_stop(); coord.join(threads); print(len(threads))" in new
    compile(new, "train.py", "exec")
