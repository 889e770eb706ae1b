"""Modules of the run found by their import name (slim_modules.ModuleLoader), in a repository whose
packages lack `__init__.py` (namespace packages, Bazel builds): what per-record code calls there is
read as in any module, so a variable it makes is refused and a random op it draws is seeded."""
import os
import textwrap

from qmigrate import api
from qmigrate.engine import Options
from qmigrate.slim_modules import ModuleLoader

READER = textwrap.dedent("""\
    import tensorflow as tf
    from proj.audio import helpers


    def inputs(files, batch_size):
        queue = tf.train.string_input_producer(files)
        _, value = tf.TFRecordReader().read(queue)
        x = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
        x = helpers.%s(x)
        return tf.train.batch([x], batch_size)
    """)

HELPERS = textwrap.dedent("""\
    import tensorflow as tf


    def shifted(x):
        return x + tf.get_variable('shift', [3])


    def jittered(x):
        return x + tf.random_uniform([3])


    def doubled(x):
        return x * 2.0
    """)


def _layout(root, helper):
    """root/proj/__init__.py, root/proj/audio/{reader,helpers}.py: proj/audio has no __init__.py."""
    os.makedirs(os.path.join(root, "proj", "audio"))
    open(os.path.join(root, "proj", "__init__.py"), "w").close()
    with open(os.path.join(root, "proj", "audio", "helpers.py"), "w") as handle:
        handle.write(HELPERS)
    reader = os.path.join(root, "proj", "audio", "reader.py")
    with open(reader, "w") as handle:
        handle.write(READER % helper)
    return reader


def test_a_dotted_name_is_found_above_a_package_without_init(tmp_path):
    reader = _layout(str(tmp_path), "doubled")
    loader = ModuleLoader(reader)
    assert loader.path_of("proj.audio.helpers") == os.path.join(str(tmp_path), "proj", "audio", "helpers.py")
    # a name of one part only where Python would look: beside the importer, or at its package's root
    with open(os.path.join(str(tmp_path), "common.py"), "w") as handle:
        handle.write("X = 1\n")
    assert loader.path_of("common") is None
    assert loader.path_of("helpers") == os.path.join(str(tmp_path), "proj", "audio", "helpers.py")


def _migrated(tmp_path, helper):
    reader = _layout(str(tmp_path), helper)
    helpers = os.path.join(str(tmp_path), "proj", "audio", "helpers.py")
    results = api.migrate([reader, helpers], Options())
    result = next(result for result in results if result.path == reader)
    source = result.new_source if result.new_source is not None else result.old_source
    return result, source.decode() if isinstance(source, bytes) else source


def test_a_variable_made_in_such_a_module_keeps_the_queue(tmp_path):
    result, source = _migrated(tmp_path, "shifted")
    assert "tf.train.batch" in source
    reasons = " ".join(d.message for d in result.diagnostics)
    assert "get_variable" in reasons, reasons


def test_a_draw_in_such_a_module_is_seeded_and_a_plain_helper_is_not(tmp_path):
    _, drawn = _migrated(tmp_path / "drawn", "jittered")
    assert "tf.data.Dataset" in drawn and "tf.set_random_seed(graph_seed)" in drawn
    _, plain = _migrated(tmp_path / "plain", "doubled")
    assert "tf.data.Dataset" in plain and "graph_seed" not in plain
