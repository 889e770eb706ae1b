"""A function that reads the queue it is given and returns the records: when no module of the run
calls it, its reason says it stays as public API (unlinked.uncalled, api._name_uncalled_functions)."""
import os

from qmigrate import api, unlinked

READER = '''import tensorflow as tf


def read_pair(filename_queue):
    _, serialized = tf.TFRecordReader().read(filename_queue)
    features = tf.parse_single_example(serialized, {'a': tf.FixedLenFeature([], tf.int64)})
    return features['a'], features['a'] * 2
'''


def _reasons(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    return [d.message for d in results["reader.py"].remaining]


def test_no_caller_in_the_run_says_it_stays_for_callers_outside(tmp_path):
    reasons = _reasons(tmp_path, {"reader.py": READER})
    assert reasons and all("to the callers of read_pair(), and no module of the run calls it: it stays as it is, "
                           "for callers outside the run" in message for message in reasons), reasons


def test_a_caller_in_the_run_keeps_the_reason_as_it_was(tmp_path):
    caller = "import reader\n\ndef use(q):\n    return reader.read_pair(q)\n"
    reasons = _reasons(tmp_path, {"reader.py": READER, "train.py": caller})
    assert reasons and all("which qmigrate does not link to them" in message for message in reasons), reasons


def test_returned_to_reads_only_its_own_phrase():
    message = "its records are returned (line 7) to the callers of f(), which qmigrate does not link to them; to do: x"
    assert unlinked.returned_to(message) == "f"
    assert unlinked.returned_to(unlinked.uncalled(message)) is None
    assert unlinked.uncalled(message).endswith("which give it the queue it reads; to do: x")
