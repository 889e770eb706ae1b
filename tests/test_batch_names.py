"""A batching's `name=` names the iterator's get_next (synth.next_element): the batch's tensors keep
the names `name:0`, `name:1`... that code may fetch them by (`get_tensor_by_name`)."""
import os
import subprocess
import textwrap

from qmigrate import api
from qmigrate.engine import Options
from tfenv import tf_python

INPUTS = '''\
import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
    _, line = tf.TextLineReader().read(queue)
    x = tf.string_to_number(line, tf.float32)
    with tf.name_scope('input'):
        return tf.train.batch([x, tf.cast(x, tf.int32) * 2], batch_size=batch_size, name='input_batch')
'''

FETCH = textwrap.dedent('''\
    import sys
    import tensorflow as tf
    sys.path.insert(0, sys.argv[1])
    import inputs
    with open(sys.argv[2], "w") as f:
        f.write("\\n".join(str(i) for i in range(6)) + "\\n")
    inputs.inputs([sys.argv[2]], 3)
    graph = tf.get_default_graph()
    x, doubled = graph.get_tensor_by_name("input/input_batch:0"), graph.get_tensor_by_name("input/input_batch:1")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        print([v.tolist() for v in sess.run([x, doubled])])
        coord.request_stop()
        coord.join(threads)
    ''')


def test_the_iterator_takes_the_batchings_name(tmp_path):
    (tmp_path / "inputs.py").write_text(INPUTS)
    result, = api.migrate([str(tmp_path / "inputs.py")], Options())
    assert "get_next(name='input_batch')" in result.new_source.decode()


def test_the_batch_is_fetched_by_its_name_before_and_after(tmp_path):
    """Under TF 1.8: `input/input_batch:0` and `:1` give the same first batch before and after."""
    python = tf_python("1.8")
    source, out = tmp_path / "source", tmp_path / "out"
    for folder in (source, out):
        folder.mkdir()
        (folder / "inputs.py").write_text(INPUTS)
    api.migrate([str(out)], Options(), write=True)
    assert "tf.data" in (out / "inputs.py").read_text()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    printed = []
    for folder in (source, out):
        done = subprocess.run([python, "-c", FETCH, str(folder), str(tmp_path / "rows.txt")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        printed.append(done.stdout.strip().splitlines()[-1])
    assert printed == ["[[0.0, 1.0, 2.0], [0, 2, 4]]"] * 2
