"""A queue made in one method and handed to another of its class (qmigrate/method_queues.py): the
producer moves into the callee where that is proven to mean the same, and only where the chain it
completes is then migrated. The TF drain test of the class_queue_passed golden shows that what is
moved reads the same examples."""
import libcst as cst

from qmigrate import api, method_queues
from qmigrate.names import ImportMap

# The queue is made in build() and read, and batched, in _read(); each case below changes one thing.
BASE = '''import tensorflow as tf

EPOCHS = 2


class Feeder(object):
    def build(self, files, size):
        queue = tf.train.string_input_producer(files, num_epochs=EPOCHS)
        self.size = size
        return self._read(queue)

    def _read(self, queue):
        reader = tf.TFRecordReader()
        _, value = reader.read(queue)
        return tf.train.batch([value], self.size)
'''


def _migrate(tmp_path, text):
    path = tmp_path / "feeder.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


def _sinks(text):
    module = cst.parse_module(text)
    return method_queues.find(module, ImportMap(module), {"tf", "EPOCHS", "Feeder"})


def test_the_producer_moves_into_the_method_that_reads_and_batches(tmp_path):
    result = _migrate(tmp_path, BASE)
    output = result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics), result.diagnostics
    assert "return self._read(files)" in output
    assert "def _read(self, filenames):" in output
    assert "from_tensor_slices(filenames)" in output and ".repeat(EPOCHS)" in output
    # Positions are those of the file as written: the producer's own line and column.
    [producer] = [d for d in result.diagnostics if d.code == "QM101"]
    assert (producer.line, producer.column) == (8, 17)


def test_a_method_another_module_calls_with_a_queue_keeps_its_queue_parameter(tmp_path):
    (tmp_path / "feeder.py").write_text(BASE)
    (tmp_path / "peek.py").write_text("import tensorflow as tf\nimport feeder\n\n\ndef peek(files):\n"
                                      "    return feeder.Feeder()._read(tf.train.string_input_producer(files))\n")
    results = {r.path.rsplit("/", 1)[-1]: r for r in api.migrate([str(tmp_path)])}
    output = (results["feeder.py"].new_source or b"").decode()
    assert "def _read(self, filenames):" not in output  # peek.py still hands it a queue
    assert "def _read(self, queue):" in output or results["feeder.py"].new_source is None


def test_a_method_called_from_two_places_keeps_its_queue_parameter(tmp_path):
    text = BASE + '''
    def preview(self, files):
        return self._read(tf.train.string_input_producer(files))
'''
    assert _sinks(text) == []
    result = _migrate(tmp_path, text)
    assert result.new_source is None  # nothing migrates: _read is handed two queues


def test_a_producer_argument_computed_in_the_caller_is_not_moved():
    text = BASE.replace("queue = tf.train.string_input_producer(files, num_epochs=EPOCHS)",
                        "epochs = 3\n        queue = tf.train.string_input_producer(files, num_epochs=epochs)")
    assert _sinks(text) == []


def test_file_names_changed_between_producer_and_call_are_not_moved():
    text = BASE.replace("self.size = size", "files = files[1:]")
    assert _sinks(text) == []
    text = BASE.replace("self.size = size", "files.append('x')")
    assert _sinks(text) == []


def test_a_queue_read_again_in_the_caller_is_not_moved():
    text = BASE.replace("self.size = size", "self.size = queue.size()")
    assert _sinks(text) == []


def test_a_move_that_completes_no_pipeline_leaves_the_file_as_it_is(tmp_path):
    # _read hands the record to Python code qmigrate cannot move into a map function.
    text = BASE.replace("return tf.train.batch([value], self.size)",
                        "self.value = value\n        return tf.train.batch([value], self.size)")
    result = _migrate(tmp_path, text)
    assert result.new_source is None
    assert any("queue" in d.message for d in result.diagnostics if d.code == "QM101")


# Rows kept on `self` for a function nested in the method that makes them.
CLOSURE = '''import tensorflow as tf


class Rows(object):
    def build(self, a, b):
        def decode():
            return self.rows[0] * 2, self.rows[1]

        self.rows = tf.train.slice_input_producer([a, b], num_epochs=1)
        x, y = decode()
        return tf.train.batch([x, y], 4)
'''


def test_rows_kept_on_self_for_a_nested_function_are_passed_to_it(tmp_path):
    result = _migrate(tmp_path, CLOSURE)
    output = result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics), result.diagnostics
    assert "self.rows" not in output and "def decode(rows_value):" in output
    assert "decode(rows)" in output
    [producer] = [d for d in result.diagnostics if d.code == "QM102"]
    assert (producer.line, producer.column) == (9, 21)


def test_a_nested_function_called_twice_or_before_the_binding_is_not_changed():
    assert _sinks(CLOSURE.replace("return tf.train.batch([x, y], 4)", "return decode()")) == []
    before = CLOSURE.replace("        x, y = decode()\n", "").replace(
        "        self.rows = tf", "        x, y = decode()\n        self.rows = tf")
    assert _sinks(before) == []


def test_a_nested_function_with_defaults_or_another_reader_of_the_attribute_is_not_changed():
    assert _sinks(CLOSURE.replace("def decode():", "def decode(k=1):")) == []
    assert _sinks(CLOSURE + "\n    def peek(self):\n        return self.rows\n") == []


def test_a_call_in_a_loop_or_a_lambda_is_not_given_the_producer():
    looped = BASE.replace("        return self._read(queue)",
                          "        for _ in range(2):\n            batch = self._read(queue)\n        return batch")
    assert _sinks(looped) == []
    deferred = BASE.replace("return self._read(queue)", "return lambda: self._read(queue)")
    assert _sinks(deferred) == []


def test_a_caller_holding_nodes_of_the_module_gets_it_analysed_as_it_is():
    from qmigrate import engine

    source = BASE.encode()
    module = engine.parse(source)
    moved = engine.analyse("feeder.py", source, engine.Options(), module)
    kept = engine.analyse("feeder.py", source, engine.Options(), module, move_queues=False)
    assert moved.module is not module and moved.fixed_calls
    assert kept.module is module and not kept.fixed_calls


# The same shape with top-level functions: main() makes the queue, batches() reads and batches it.
FUNCTIONS = '''import tensorflow as tf


def batches(queue, size):
    reader = tf.TFRecordReader()
    _, value = reader.read(queue)
    return tf.train.batch([value], size)


def main(files):
    queue = tf.train.string_input_producer(files, num_epochs=2)
    return batches(queue, 4)
'''


def test_the_producer_moves_into_the_function_that_reads_and_batches(tmp_path):
    result = _migrate(tmp_path, FUNCTIONS)
    output = result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics), result.diagnostics
    assert "return batches(files, 4)" in output and "def batches(filenames, size):" in output
    assert "from_tensor_slices(filenames)" in output and ".repeat(2)" in output


def test_a_function_another_module_calls_with_a_queue_keeps_its_queue_parameter(tmp_path):
    (tmp_path / "feeder.py").write_text(FUNCTIONS)
    (tmp_path / "peek.py").write_text("import tensorflow as tf\nimport feeder\n\n\ndef peek(files):\n"
                                      "    return feeder.batches(tf.train.string_input_producer(files), 1)\n")
    results = {r.path.rsplit("/", 1)[-1]: r for r in api.migrate([str(tmp_path)])}
    assert results["feeder.py"].new_source is None  # peek.py still hands it a queue: nothing moves
    [producer] = [d for d in results["feeder.py"].diagnostics if d.code == "QM101"]
    assert not producer.fixed and "is passed to batches() (line 12)" in producer.message


def test_a_function_that_only_reads_or_is_named_twice_is_not_given_the_producer():
    only_reads = FUNCTIONS.replace("    return tf.train.batch([value], size)\n", "    return value\n")
    twice = FUNCTIONS + "\n\nALIAS = batches\n"
    decorated = FUNCTIONS.replace("def batches(", "@tf.contrib.framework.add_arg_scope\ndef batches(")
    for text in (only_reads, twice, decorated):
        assert _sinks(text) == []
    assert len(_sinks(FUNCTIONS)) == 1
