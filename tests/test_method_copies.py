"""A reading method kept for callers in its file that stay gets a migrated copy beside it (method_copies.py)."""
import textwrap

from qmigrate import api
from qmigrate.engine import Options

LOADER = textwrap.dedent("""
    import tensorflow as tf


    class Loader(object):
        def __init__(self, files):
            self.files = files

        def read_ids(self, filename_queue):
            reader = tf.TFRecordReader()
            _, serialized = reader.read(filename_queue)
            return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']

        def batches(self, batch_size):
            queue = tf.train.string_input_producer(self.files)
            example_id = self.read_ids(queue)
            return tf.train.batch([example_id], batch_size)

        def one(self):
            queue = tf.train.string_input_producer(self.files, num_epochs=1)
            return self.read_ids(queue)
    """)


def _migrate(tmp_path, source):
    path = tmp_path / "loader.py"
    path.write_text(source)
    [result] = api.migrate([str(path)], Options())
    return result, result.new_source.decode() if result.changed else source


def test_the_migrated_pipeline_calls_a_copy_and_the_method_stays(tmp_path):
    result, new = _migrate(tmp_path, LOADER)
    assert "    def read_ids(self, filename_queue):\n        reader = tf.TFRecordReader()" in new
    assert "    def parse_ids(self, serialized):\n        return tf.parse_single_example" in new
    assert "example_id = self.parse_ids(serialized)" in new
    assert "tf.train.batch(" not in new
    [left] = [d for d in result.remaining if d.code == "QM201"]
    assert "read_ids() is kept as it was" in left.message and "its migrated copy parse_ids()" in left.message


def test_a_copy_takes_a_name_no_attribute_of_the_module_reads(tmp_path):
    source = LOADER.replace("return self.read_ids(queue)", "return self.read_ids(queue), self.parse_ids")
    _, new = _migrate(tmp_path, source)
    assert "def parse_ids_2(self, serialized):" in new and "self.parse_ids_2(serialized)" in new


def test_no_copy_when_a_related_class_defines_the_method_too(tmp_path):
    """`self.read_ids(queue)` may reach Special.read_ids: a copy would not follow that dispatch."""
    source = LOADER + textwrap.dedent("""

        class Special(Loader):
            def read_ids(self, filename_queue):
                reader = tf.TFRecordReader()
                _, serialized = reader.read(filename_queue)
                return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id'] + 1
        """)
    result, new = _migrate(tmp_path, source)
    assert "def parse_ids(" not in new and "tf.train.batch(" in new


def test_no_copy_of_a_method_another_reading_method_forwards_its_queue_to(tmp_path):
    """`outer` passes its queue on to `read_ids`; migrated, it would hand the original the record."""
    source = LOADER.replace("example_id = self.read_ids(queue)", "example_id = self.outer(queue)") + textwrap.dedent("""
            def outer(self, filename_queue):
                example_id = self.read_ids(filename_queue)
                return example_id * 2
        """).replace("\n", "\n    ").rstrip() + "\n"
    result, new = _migrate(tmp_path, source)
    assert "def parse_ids(" not in new and "tf.train.batch(" in new
