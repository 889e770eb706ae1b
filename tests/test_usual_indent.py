"""New code is indented as most of the file's blocks are (cstutil.with_usual_indent), and the
file's own lines keep their indentation."""
import libcst as cst

from qmigrate import api, cstutil

# A two-space helper first (libcst's default indent would be two spaces), four-space code after.
MIXED = '''\
import tensorflow as tf


def helper(t):
  return t


class Loader(object):
    def __init__(self, files, batch_size):
        queue = tf.train.string_input_producer(files)
        _, record = tf.TextLineReader().read(queue)
        x, y = tf.decode_csv(record, [[0.0], [0]])
        self.x, self.y = tf.train.batch([x, y], batch_size)
'''


def test_new_code_among_four_space_methods_is_indented_four_spaces(tmp_path):
    path = tmp_path / "loader.py"
    path.write_text(MIXED)
    [result] = api.migrate([str(path)])
    assert result.changed
    text = result.new_source.decode()
    assert "def helper(t):\n  return t\n" in text  # the file's own two-space block as it was
    assert "        def parse_record(record):\n            x, y = tf.decode_csv(" in text
    compile(text, "loader.py", "exec")


def test_the_module_is_written_the_same_with_its_new_default():
    module = cst.parse_module(MIXED)
    assert module.default_indent == "  "
    usual = cstutil.with_usual_indent(module)
    assert usual.default_indent == "    "
    assert usual.code == MIXED


def test_a_module_whose_first_indent_is_the_usual_one_is_left_as_parsed():
    module = cst.parse_module(MIXED.replace("  return t", "    return t"))
    assert cstutil.with_usual_indent(module) is module
