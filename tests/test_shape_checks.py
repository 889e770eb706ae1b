"""A queue's `shapes=` is checked for each record in the map function (synth.shape_checks): the
queue refused a record of another shape when it was enqueued; `set_shape` alone let it through."""
import os
import subprocess
import textwrap

from qmigrate import api
from qmigrate.engine import Options
from qmigrate.targets import TARGETS
from tfenv import tf_python

INPUTS = '''\
import tensorflow as tf


def input_fn(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader().read(queue)
    values = tf.string_to_number(tf.string_split([line]).values, out_type=tf.int32)
    return tf.train.batch([values], batch_size=batch_size, shapes=[[3]])
'''

DRAIN = textwrap.dedent('''\
    import sys
    import tensorflow as tf
    sys.path.insert(0, sys.argv[1])
    import inputs
    with open(sys.argv[2], "w") as f:
        f.write("1 2 3\\n4 5 6\\n7 8 9 10\\n11 12 13 14\\n15 16 17\\n18 19 20\\n")
    batch = inputs.input_fn([sys.argv[2]], 2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        got = []
        try:
            while True:
                got.append(sess.run(batch).tolist())
        except tf.errors.OutOfRangeError:
            ended = "end"
        except tf.errors.InvalidArgumentError:
            ended = "invalid"
        coord.request_stop()
        try:
            coord.join(threads)
        except tf.errors.InvalidArgumentError:
            ended += ", runner invalid"
    print(repr((got, ended)))
    ''')


def _migrated(folder, target="1.8"):
    folder.mkdir(exist_ok=True)
    (folder / "inputs.py").write_text(INPUTS)
    api.migrate([str(folder)], Options(target=TARGETS[target]), write=True)
    return (folder / "inputs.py").read_text()


def test_the_shape_is_checked_where_it_is_set(tmp_path):
    new = _migrated(tmp_path / "out")
    assert ("with tf.control_dependencies([tf.assert_equal(tf.shape(values), tf.constant([3], tf.int32))]):\n"
            "            values = tf.identity(values)\n        values.set_shape([3])\n") in new
    assert "values = tf.ensure_shape(values, [3])" in _migrated(tmp_path / "out_115", target="1.15")


def test_a_record_of_another_shape_fails_before_and_after(tmp_path):
    """Under TF 1.8: six lines, the third and fourth of 4 numbers: the queue gave the first batch,
    then its runner failed on the record (InvalidArgumentError at join); the dataset gives the
    first batch, then fails on the record at the next fetch. Neither gives a batch of 4 numbers."""
    python = tf_python("1.8")
    source, out = tmp_path / "source", tmp_path / "out"
    source.mkdir()
    (source / "inputs.py").write_text(INPUTS)
    _migrated(out)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    outcomes = []
    for folder in (source, out):
        done = subprocess.run([python, "-c", DRAIN, str(folder), str(tmp_path / "rows.txt")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        outcomes.append(eval(done.stdout.strip().splitlines()[-1]))
    before, after = outcomes
    assert before == ([[[1, 2, 3], [4, 5, 6]]], "end, runner invalid")
    assert after == ([[[1, 2, 3], [4, 5, 6]]], "invalid")


def test_an_outer_tensor_the_function_returns_is_only_set(tmp_path):
    # Bound again in the function, it would be a local unbound where the check reads it.
    path = tmp_path / "outer.py"
    path.write_text(INPUTS.replace("    queue = ", "    label = tf.constant(1)\n    queue = ").replace(
        "[values], batch_size=batch_size, shapes=[[3]]", "[values, label], batch_size=batch_size, shapes=[[3], []]"))
    result, = api.migrate([str(path)], Options())
    new = result.new_source.decode()
    assert "        label.set_shape([])\n        return values, label\n" in new
    assert "label = tf.identity(label)" not in new and "values = tf.identity(values)" in new
