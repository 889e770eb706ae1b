"""Input functions that feed arrays or a generator through a queue of their own
(`tf.estimator.inputs.numpy_input_fn`, `pandas_input_fn`, tf.contrib.learn's `numpy_input_fn`,
`pandas_input_fn`, `generator_input_fn`): a Python thread fills it, started by
start_queue_runners. qmigrate reported nothing for them, so once another pipeline of the program
migrated it removed the runners' start, and the program hung on the first batch of the input
function (found on a training-data-analyst notebook, shown under TF 1.8). Each is now reported
(QM001) and counts as queue code left: the runners stay."""
import os
import subprocess

import pytest

from qmigrate import api
from tfenv import tf_python

PROGRAM = '''\
import sys
import numpy as np
import tensorflow as tf


def records(files, batch_size):
    queue = tf.train.string_input_producer(files, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    example_id = tf.parse_single_example(value, {'id': tf.FixedLenFeature([], tf.int64)})['id']
    return tf.train.batch([example_id], batch_size=batch_size)


def main(path):
    with tf.python_io.TFRecordWriter(path) as writer:
        for i in range(6):
            writer.write(tf.train.Example(features=tf.train.Features(feature={
                'id': tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))})).SerializeToString())
    batch = records([path], 2)
    other = %s({'a': np.arange(4)}, batch_size=2, shuffle=False)()['a']
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        print(sess.run(batch).tolist(), sess.run(other).tolist())
        coord.request_stop()
        coord.join(threads)


if __name__ == '__main__':
    main(sys.argv[1])
'''

FED = ("tf.estimator.inputs.numpy_input_fn", "tf.contrib.learn.io.numpy_input_fn",
       "tf.estimator.inputs.pandas_input_fn", "tf.contrib.learn.pandas_input_fn",
       "tf.contrib.learn.io.generator_input_fn")


@pytest.mark.parametrize("api_name", FED)
def test_each_is_reported_and_keeps_the_runners(tmp_path, api_name):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM % api_name)
    result, = api.migrate([str(path)])
    assert result.changed  # the TFRecord pipeline migrates
    assert b"start_queue_runners" in result.new_source
    codes = [d.code for d in result.remaining]
    assert "QM001" in codes and "QM501" in codes


def test_the_migrated_program_still_runs_under_tf18(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM % "tf.estimator.inputs.numpy_input_fn")
    result, = api.migrate([str(path)], write=True)
    assert result.changed
    done = subprocess.run([tf_python("1.8"), str(path), str(tmp_path / "ids.tfrecords")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "[0, 1] [0, 1]"


TIMESERIES = '''\
import sys
import numpy as np
import tensorflow as tf
from tensorflow.contrib.timeseries.python.timeseries import NumpyReader


def lines(files, batch_size):
    queue = tf.train.string_input_producer(files, shuffle=False)
    _, line = tf.TextLineReader().read(queue)
    return tf.train.batch([line], batch_size=batch_size)


def main(path):
    with open(path, 'w') as handle:
        handle.write('a\\nb\\nc\\nd\\n')
    batch = lines([path], 2)
    series = NumpyReader({tf.contrib.timeseries.TrainEvalFeatures.TIMES: np.arange(40),
                          tf.contrib.timeseries.TrainEvalFeatures.VALUES: np.arange(40, dtype=np.float32)})
    window = tf.contrib.timeseries.RandomWindowInputFn(series, batch_size=2, window_size=5).create_batch()
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        print(sess.run(batch).tolist(), sess.run(window[0])['times'].shape)
        coord.request_stop()
        coord.join(threads)


if __name__ == '__main__':
    main(sys.argv[1])
'''


def test_timeseries_readers_keep_the_runners_and_run_under_tf18(tmp_path):
    # tf.contrib.timeseries' NumpyReader and RandomWindowInputFn window the series through queues
    # of their own (a reviewer's program hung once the runners went).
    path = tmp_path / "series.py"
    path.write_text(TIMESERIES)
    result, = api.migrate([str(path)], write=True)
    assert result.changed and b"start_queue_runners" in result.new_source
    assert [d.code for d in result.remaining].count("QM001") == 2
    done = subprocess.run([tf_python("1.8"), str(path), str(tmp_path / "lines.txt")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "[b'a', b'b'] (2, 5)"
