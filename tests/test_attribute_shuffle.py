"""A producer's `shuffle=` given as an attribute (`self.training`): the Python test moves to where
the dataset is built, so nothing between may be able to change the attribute."""
from qmigrate import api, render


def _migrate(tmp_path, text):
    path = tmp_path / "pipeline.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


BATCHED = '''import tensorflow as tf


class Inputs(object):
    def __init__(self, files, training):
        self.files = files
        self.training = training

    def batches(self, batch_size):
        queue = tf.train.string_input_producer(self.files, shuffle=self.training)
        _, value = tf.TFRecordReader().read(queue)
        x = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
        return tf.train.batch([x], batch_size=batch_size)
'''


def test_a_batched_chain_tests_the_attribute_where_the_dataset_is_built(tmp_path):
    output = _migrate(tmp_path, BATCHED).new_source.decode()
    assert "if self.training:\n            dataset = dataset.shuffle(" in output
    assert "string_input_producer" not in output


def test_a_call_between_producer_and_batch_keeps_the_chain(tmp_path):
    # It stays where it is, now before the test; per-record code would move after it, as before.
    text = BATCHED.replace("        x = tf.parse", "        self.count_reads()\n        x = tf.parse")
    result = _migrate(tmp_path, text)
    assert result.new_source is None
    assert "`self.count_reads(...)` at line 12, before it, may change it" in render.findings([result], show_fixed=False)


def test_a_store_into_the_object_before_an_unbatched_read_keeps_it(tmp_path):
    text = '''import tensorflow as tf


class Source(object):
    def example(self):
        queue = tf.train.input_producer(self.paths, num_epochs=1, shuffle=self.training)
        self.training = False
        _, value = tf.TFRecordReader().read(queue)
        return value
'''
    result = _migrate(tmp_path, text)
    assert result.new_source is None
    assert "`shuffle=self.training` is tested where the dataset is built" in render.findings([result], show_fixed=False)


def test_an_attribute_of_a_call_is_still_refused(tmp_path):
    text = BATCHED.replace("shuffle=self.training", "shuffle=self.flags().training")
    result = _migrate(tmp_path, text)
    assert result.new_source is None
    assert "computed at run time with a call or subscript" in render.findings([result], show_fixed=False)
