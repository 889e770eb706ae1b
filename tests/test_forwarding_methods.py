"""A reader method that hands its queue on to another reader method of its class
(`self._read_row(queue)`) reads through it: both take the record once the pipeline is migrated
(engine._add_forwarding_methods). The TF drain of the forwarding_method golden shows the same
examples; here, the cases that must stay as they are."""
import os

from conftest import TESTDATA
from qmigrate import api

with open(os.path.join(TESTDATA, "single", "forwarding_method.before.py")) as handle:
    BASE = handle.read()


def _migrate(tmp_path, text):
    path = tmp_path / "rows.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


def test_the_golden_migrates_through_both_methods(tmp_path):
    result = _migrate(tmp_path, BASE)
    assert result.changed and not result.remaining
    new = result.new_source.decode()
    assert "def _read(self, line):" in new and "def _read_row(self, line):" in new


def test_a_forwarding_method_that_uses_its_queue_again_stays(tmp_path):
    text = BASE.replace("        return features * self._scale, species",
                        "        tf.summary.scalar('files_left', filename_queue.size())\n"
                        "        return features * self._scale, species")
    result = _migrate(tmp_path, text)
    assert not result.changed
    assert any(d.code == "QM101" and "self._read()" in d.message for d in result.remaining)


def test_an_inner_method_another_caller_still_hands_a_queue_keeps_the_chain(tmp_path):
    """`_read_row` is also read by a method whose queue stays (a hand-built queue of its own):
    migrated, `_read` would hand `_read_row` records while that caller hands it a queue, so the
    chain through `_read` stays too, and says which method keeps it."""
    text = BASE.replace('''    def batches(self, csv_files, batch_size, num_epochs=1):''', '''    def raw(self, csv_files):
        queue = tf.FIFOQueue(10, [tf.string])
        return self._read_row(queue)

    def batches(self, csv_files, batch_size, num_epochs=1):''')
    result = _migrate(tmp_path, text)
    new = (result.new_source or result.old_source).decode()
    assert "def _read_row(self, csv_queue):" in new and "reader.read(csv_queue)" in new
    assert "def _read(self, filename_queue):" in new
    assert any(d.code == "QM101" and "self._read_row(), which stays as it is" in d.message for d in result.remaining)
