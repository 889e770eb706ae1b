"""A method that batches the records of a reader and queue its object made in __init__ (a held
record source, held_sources.py, or a queue moved from __init__ into the method) runs once per
object after the migration: two calls on one object shared the queue's records, where two datasets
would each read them all (each example reaching both towers). Calls in the file are counted there;
calls from other modules of the run are seen by the run (engine: FileAnalysis.record_attributes),
and the method then stays, saying where it is named."""
import os

from qmigrate import api

HELD = '''import tensorflow as tf


class LineSource(object):
    def __init__(self, csv_files, epochs):
        self.line_reader = tf.TextLineReader()
        self.name_queue = tf.train.string_input_producer(csv_files, num_epochs=epochs, shuffle=False)

    def _field(self):
        _, line = self.line_reader.read(self.name_queue)
        return tf.decode_csv(line, [[''], ['']])[0]

    def get_batch(self, batch_size):
        field = self._field()
        return tf.train.batch([field], batch_size, allow_smaller_final_batch=True)
'''

MOVED = '''import tensorflow as tf


class LineSource(object):
    def __init__(self, csv_files, epochs):
        self.csv_files = csv_files
        self.line_reader = tf.TextLineReader()
        self.name_queue = tf.train.string_input_producer(self.csv_files, num_epochs=1, shuffle=False)

    def get_batch(self, batch_size):
        _, line = self.line_reader.read(self.name_queue)
        field = tf.decode_csv(line, [[''], ['']])[0]
        return tf.train.batch([field], batch_size, allow_smaller_final_batch=True)
'''

TWO_TOWERS = '''from data import LineSource


def towers(files):
    source = LineSource(files, 1)
    return source.get_batch(4), source.get_batch(4)
'''

UNRELATED = '''def towers(files):
    return len(files)
'''


def _run(tmp_path, data, train):
    (tmp_path / "data.py").write_text(data)
    (tmp_path / "train.py").write_text(train)
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)], jobs=1)}


def _reasons(result):
    return [f.message for f in result.diagnostics if not f.fixed and not f.note]


def test_a_held_sources_batching_method_called_from_another_module_stays(tmp_path):
    results = _run(tmp_path, HELD, TWO_TOWERS)
    assert not results["data.py"].changed
    reasons = _reasons(results["data.py"])
    assert len(reasons) == 3
    assert all("other modules mention `.get_batch` (train.py:6)" in r and "a second call of get_batch()" in r
               for r in reasons)


def test_a_queue_moved_from_init_whose_method_another_module_calls_stays(tmp_path):
    results = _run(tmp_path, MOVED, TWO_TOWERS)
    assert not results["data.py"].changed
    reasons = _reasons(results["data.py"])
    assert sum("other modules mention `.get_batch` (train.py:6)" in r for r in reasons) == 2  # reader, batch


def test_both_migrate_when_no_other_module_names_the_method(tmp_path):
    for data in (HELD, MOVED):
        results = _run(tmp_path, data, UNRELATED)
        assert results["data.py"].changed and not _reasons(results["data.py"])


LOOP = '''


def towers(files):
    source = LineSource(files, 1)
    return [source.get_batch(4) for _ in range(2)]
'''


def test_a_batching_method_called_in_a_comprehension_of_its_own_file_stays(tmp_path):
    for data in (HELD, MOVED):
        results = _run(tmp_path, data + LOOP, UNRELATED)
        assert not results["data.py"].changed
        reasons = _reasons(results["data.py"])
        assert sum("calls get_batch() in a loop, lambda or comprehension (line " in r for r in reasons) >= 2


QUEUE_SIZE = '''from data import LineSource


def tower(files):
    source = LineSource(files, 1)
    return source.get_batch(4), source.name_queue.size()
'''


def test_a_held_or_moved_queue_attribute_other_modules_read_stays(tmp_path):
    for data in (HELD, MOVED):
        results = _run(tmp_path, data, QUEUE_SIZE.replace("source.get_batch(4), ", ""))
        assert not results["data.py"].changed
        assert any("other modules mention `.name_queue` (train.py:6)" in r for r in _reasons(results["data.py"]))


SAME_METHOD = '''import tensorflow as tf


class LineSource(object):
    def __init__(self, csv_files):
        self.csv_files = csv_files

    def get_batch(self, batch_size):
        self.name_queue = tf.train.string_input_producer(self.csv_files, num_epochs=1, shuffle=False)
        _, line = tf.TextLineReader().read(self.name_queue)
        field = tf.decode_csv(line, [[''], ['']])[0]
        return tf.train.batch([field], batch_size, allow_smaller_final_batch=True)
'''

SIZE_AFTER = '''from data import LineSource


def tower(files):
    source = LineSource(files)
    batch = source.get_batch(4)
    return batch, source.name_queue.size()
'''


def test_a_queue_bound_and_read_in_one_method_stays_when_other_modules_read_it(tmp_path):
    results = _run(tmp_path, SAME_METHOD, SIZE_AFTER)
    assert not results["data.py"].changed
    assert any("other modules mention `.name_queue` (train.py:7)" in r for r in _reasons(results["data.py"]))
    results = _run(tmp_path, SAME_METHOD, UNRELATED)
    assert results["data.py"].changed and not _reasons(results["data.py"])
