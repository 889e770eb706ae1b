"""Queue runners a module makes itself show no queue API call: they are reported all the same."""
from qmigrate import api


def _check(tmp_path, text):
    path = tmp_path / "runner.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


def test_a_queue_runner_subclass_is_reported_where_it_subclasses(tmp_path):
    result = _check(tmp_path, "from tensorflow.python.training import queue_runner_impl as qr\n\n\n"
                              "class Feeder(qr.QueueRunner):\n    def _run(self, sess, enqueue_op, coord=None):\n"
                              "        pass\n")
    [finding] = result.diagnostics
    assert (finding.line, finding.code, finding.fixed, finding.note) == (4, "QM307", False, False)
    assert "`Feeder` subclasses" in finding.message and "from_generator" in finding.message
    assert result.remaining


def test_a_runner_registered_in_the_collection_by_hand_is_reported(tmp_path):
    result = _check(tmp_path, "from tensorflow.python.framework import ops\n\n\n"
                              "class QueueRunner(object):\n    pass\n\n\n"
                              "def add_queue_runner(qr, collection=ops.GraphKeys.QUEUE_RUNNERS):\n"
                              "    ops.add_to_collection(collection, qr)\n")
    [finding] = result.diagnostics
    assert finding.line == 8 and "QUEUE_RUNNERS collection by hand" in finding.message


def test_a_class_of_the_same_name_that_is_not_tensorflows_is_not_reported(tmp_path):
    result = _check(tmp_path, "import tensorflow as tf\n\n\nclass QueueRunner(object):\n    pass\n\n\n"
                              "class Mine(QueueRunner):\n    pass\n")
    assert not result.diagnostics
