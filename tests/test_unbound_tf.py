"""Queue calls spelled `tf.x` in a module that never binds `tf`, or binds it to another package
(unbound_tf.py): reported by their rules with the reason and what to do, never rewritten."""
from qmigrate import api

FRAGMENT = '''\
def examples(files, batch_size):
    queue = tf.train.string_input_producer(files)
    _, record = tf.TFRecordReader().read(queue)
    return tf.train.batch([record], batch_size)
'''


def _run(tmp_path, text):
    path = tmp_path / "fragment.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


def test_a_fragment_that_never_imports_tf_is_reported_not_rewritten(tmp_path):
    result = _run(tmp_path, FRAGMENT)
    assert not result.changed
    assert [(d.line, d.code, d.fixed) for d in result.diagnostics] == [
        (2, "QM101", False), (3, "QM201", False), (4, "QM301", False)]
    assert all("uses `tf` without importing it" in d.message and "add `import tensorflow as tf`" in d.message
               for d in result.diagnostics)


def test_with_the_import_it_migrates(tmp_path):
    result = _run(tmp_path, "import tensorflow as tf\n\n\n" + FRAGMENT)
    assert result.changed and all(d.fixed for d in result.diagnostics)


def test_a_tf_the_module_binds_otherwise_is_not_taken_for_tensorflow(tmp_path):
    for binding in ("def examples(files, batch_size, tf):", "tf = None\n\n\ndef examples(files, batch_size):"):
        result = _run(tmp_path, FRAGMENT.replace("def examples(files, batch_size):", binding))
        assert not result.changed and result.diagnostics == ()


def test_a_tf_that_is_another_package_is_reported_with_what_it_is(tmp_path):
    result = _run(tmp_path, "import sugartensor as tf\n\n\n" + FRAGMENT)
    assert not result.changed
    assert [(d.line, d.code, d.fixed) for d in result.diagnostics] == [
        (5, "QM101", False), (6, "QM201", False), (7, "QM301", False)]
    assert all("`tf` is `sugartensor` here" in d.message and "import TensorFlow itself too" in d.message
               for d in result.diagnostics)


def test_tensorflow_under_another_path_is_tensorflow(tmp_path):
    result = _run(tmp_path, "import tensorflow.compat.v1 as tf\n\n\n" + FRAGMENT)
    assert result.changed  # (and QM906: TF 1.8, the default target, has no tf.compat.v1)
    assert [(d.code, d.fixed) for d in result.diagnostics if d.code != "QM906"] == [
        ("QM101", True), ("QM201", True), ("QM301", True)]

