"""Readers and queues kept on `self` (qmigrate/class_attrs.py): followed across methods when the
class binds them once and reads them once, refused with the reason otherwise. The TF drain tests
of the class_* goldens show that what is followed reads the same examples."""
import pytest

from qmigrate import api

# A reader made in __init__, read in batch(); each case below changes one thing.
BASE = '''import tensorflow as tf


class Feeder(object):
    def __init__(self, files, size):
        self.files = files
        self.size = size
        self.reader = tf.TFRecordReader()

    def batch(self):
        queue = tf.train.string_input_producer(self.files)
        _, value = self.reader.read(queue)
        return tf.train.batch([value], self.size)
'''


def _migrate(tmp_path, text):
    path = tmp_path / "feeder.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


def _reasons(result):
    return " | ".join(d.message for d in result.diagnostics if not d.fixed)


def test_a_reader_bound_once_in_init_and_read_once_goes_with_the_queue(tmp_path):
    result = _migrate(tmp_path, BASE)
    output = result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics)
    assert "TFRecordReader" not in output and "self.reader" not in output
    assert "self.files = files" in output and "tf.data.TFRecordDataset" in output


@pytest.mark.parametrize("change,reason", [
    # bound a second time
    (("        self.reader = tf.TFRecordReader()\n",
      "        self.reader = tf.TFRecordReader()\n        if size:\n            self.reader = tf.TFRecordReader()\n"),
     "`self.reader` is assigned in several places"),
    # bound only on one path
    (("        self.reader = tf.TFRecordReader()\n",
      "        if size:\n            self.reader = tf.TFRecordReader()\n"),
     "inside an if, loop or try"),
    # read again elsewhere in the class
    ("    def reset(self):\n        return self.reader.reset()\n",
     "is used beyond reader.read()"),
    # the object handed to code that may read any attribute
    (("        self.size = size\n", "        self.size = size\n        register(self)\n"),
     "itself is handed to other code"),
    # another object of the module reaches the attribute
    ("\n\ndef peek(feeder):\n    return feeder.reader.num_records_produced()\n",
     "`.reader` is also used outside class Feeder"),
    # a subclass in the module may read it as its own
    ("\n\nclass Child(Feeder):\n    def peek(self):\n        return self.reader.num_records_produced()\n",
     "`.reader` is also used outside class Feeder"),
    # two calls of the method would share one reader
    ("    def twice(self):\n        return self.batch(), self.batch()\n",
     "calls batch() in 3 places"),
])
def test_what_cannot_be_proven_is_left_with_its_reason(tmp_path, change, reason):
    if isinstance(change, tuple):
        assert change[0] in BASE
        text = BASE.replace(change[0], change[1])
    else:
        text = BASE + change
    result = _migrate(tmp_path, text)
    assert result.new_source is None
    assert reason in _reasons(result)


def test_a_reader_of_an_unrelated_class_with_the_same_attribute_does_not_count(tmp_path):
    other = "\n\nclass Other(object):\n    def __init__(self):\n        self.reader = None\n\n" \
            "    def peek(self):\n        return self.reader\n"
    result = _migrate(tmp_path, BASE + other)
    assert result.new_source is not None and all(d.fixed for d in result.diagnostics)


QUEUE = '''import tensorflow as tf


class Feeder(object):
    def __init__(self, files):
        self.files = files
        self.queue = tf.train.string_input_producer(self.files, num_epochs=1)

    def batch(self):
        reader = tf.TFRecordReader()
        _, value = reader.read(self.queue)
        return tf.train.batch([value], 4)
'''


def test_a_queue_made_in_init_from_an_attribute_moves_to_its_read(tmp_path):
    output = _migrate(tmp_path, QUEUE).new_source.decode()
    assert "string_input_producer" not in output
    assert "from_tensor_slices(self.files)" in output
    assert "def __init__(self, files):\n        self.files = files\n\n" in output


@pytest.mark.parametrize("old,new,reason", [
    # made from a parameter of __init__: batch() cannot see it
    ("string_input_producer(self.files,", "string_input_producer(files,", "from `files`, a value of that method"),
    # from an attribute bound after it
    ("        self.files = files\n        self.queue = tf.train.string_input_producer(self.files, num_epochs=1)\n",
     "        self.queue = tf.train.string_input_producer(self.files, num_epochs=1)\n        self.files = files\n",
     "is bound after line"),
    # from an attribute that may change in place
    ("    def batch(self):\n", "    def more(self, name):\n        self.files.append(name)\n\n    def batch(self):\n",
     "in a way that may change it"),
    # __init__ calls a method before it makes the queue
    ("        self.files = files\n", "        self.files = files\n        self.setup()\n",
     "__init__ calls self.setup() (line"),
])
def test_a_queue_whose_arguments_would_mean_something_else_is_left(tmp_path, old, new, reason):
    assert old in QUEUE
    setup = "\n    def setup(self):\n        self.ready = True\n"
    result = _migrate(tmp_path, QUEUE.replace(old, new) + setup)
    assert result.new_source is None
    assert reason in _reasons(result)


METHOD = '''import tensorflow as tf


class Source(object):
    def __init__(self, files):
        self.files = files

    def parse(self, filename_queue):
        reader = tf.TFRecordReader()
        _, value = reader.read(filename_queue)
        return tf.parse_single_example(value, {'id': tf.FixedLenFeature([], tf.int64)})['id']

    def batch(self):
        queue = tf.train.string_input_producer(self.files)
        example_id = self.parse(queue)
        return tf.train.batch([example_id], 4)
'''


def test_a_reading_method_takes_the_record(tmp_path):
    output = _migrate(tmp_path, METHOD).new_source.decode()
    assert "def parse(self, value):" in output
    assert "example_id = self.parse(value)" in output


def test_a_reading_method_also_called_from_outside_the_class_stays_beside_its_copy(tmp_path):
    """peek() still hands parse() a queue: parse() stays, and the migrated pipeline calls its
    record-taking copy (method_copies.py)."""
    text = METHOD + "\n\ndef peek(source, queue):\n    return source.parse(queue)\n"
    result = _migrate(tmp_path, text)
    output = result.new_source.decode()
    assert "def parse(self, filename_queue):" in output and "def parse_from_record(self, value):" in output
    assert "example_id = self.parse_from_record(value)" in output
    assert "parse() is kept as it was for calls of it in this file that stay as they are" in _reasons(result)


def test_a_reading_method_another_module_calls_stays_with_its_pipelines(tmp_path):
    (tmp_path / "source.py").write_text(METHOD)
    (tmp_path / "preview.py").write_text("import tensorflow as tf\nimport source\n\n\n"
                                         "def preview(files):\n"
                                         "    queue = tf.train.string_input_producer(files)\n"
                                         "    return source.Source(files).parse(queue)\n")
    results = {r.path.rsplit("/", 1)[-1]: r for r in api.migrate([str(tmp_path)])}
    assert results["source.py"].new_source is None
    assert "its callers in other modules (preview.py:7)" in _reasons(results["source.py"])


def test_a_reading_method_a_subclass_overrides_is_not_followed(tmp_path):
    text = METHOD + ("\n\nclass Other(Source):\n    def parse(self, filename_queue):\n"
                     "        return tf.constant(0, tf.int64)\n")
    result = _migrate(tmp_path, text)
    assert result.new_source is None
    assert "passed to the method self.parse() (line 15), which a related class of this file defines too" \
        in _reasons(result)


def test_a_comment_above_a_removed_binding_stays_even_when_its_with_goes(tmp_path):
    text = BASE.replace("        self.reader = tf.TFRecordReader()\n",
                        "        with tf.name_scope('input'):\n            # one reader for every file\n"
                        "            self.reader = tf.TFRecordReader()\n")
    output = _migrate(tmp_path, text).new_source.decode()
    assert "name_scope('input')" not in output
    assert "        # one reader for every file\n" in output
