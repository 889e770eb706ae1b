"""A run over a folder inside a package: `from pkg.sub import data` names a module whose leading
parts are in no file's path of the run. Queue runners stay in the importer while that module may
still build queues (api's queues_left asks Program.closure with `partial`)."""
import os

from qmigrate import api
from qmigrate.program import ModuleIndex

DATA = '''import tensorflow as tf


def batches(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    parsed = tf.parse_single_example(value, {'x': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch([parsed['x']], batch_size)


def batch_with_length(row, batch_size):
    return tf.train.batch([row, tf.size(row)], batch_size)
'''

TEST = '''import tensorflow as tf

from %s import data


def drain(files):
    x, = data.batches(files, 2)
    with tf.Session() as sess:
        with tf.contrib.slim.queues.QueueRunners(sess):
            return sess.run(x)


def lengths(rows):
    return data.batch_with_length(rows, 2)
'''


def _run(tmp_path, package):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "data.py").write_text(DATA)
    (sub / "data_test.py").write_text(TEST % package)
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)], jobs=1)}


def test_a_module_of_a_partly_held_package_resolves_by_its_last_parts():
    index = ModuleIndex(["/run/sub/data.py", "/run/other/data.py"])
    assert index.module_file("/run/sub/data_test.py", "pkg.sub.data") is None
    assert index.partial_package_file("pkg.sub.data") == "/run/sub/data.py"
    assert index.partial_package_file("pkg.data") is None  # one part alone says too little
    assert index.partial_package_file("pkg.elsewhere.data") is None


def test_queue_runners_stay_while_the_partly_held_module_builds_queues(tmp_path):
    results = _run(tmp_path, "pkg.sub")
    # one pipeline migrated; batch_with_length's queue stays, and the test module calls it
    assert results["data.py"].changed
    assert not results["data_test.py"].changed
    assert any(d.code == "QM504" and not d.fixed for d in results["data_test.py"].diagnostics)


def test_the_same_import_resolved_in_the_run_keeps_them_too(tmp_path):
    results = _run(tmp_path, "sub")
    assert not results["data_test.py"].changed
