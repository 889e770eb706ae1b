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


def test_a_line_that_does_more_stays(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM % "coord.request_stop(); coord.join(threads); print(len(threads))")
    result, = api.migrate([str(path)], jobs=1)
    runners = next(d for d in result.remaining if d.code == "QM501")
    assert "its thread list `threads` is used for more than join()" in runners.message
