"""QM908: a literal expecting a closed queue's error message is reported where it is written,
once for an implicit concatenation, and only in files with queue code."""
from qmigrate import api

PIPELINE = '''import tensorflow as tf


def drain(test, files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    batch = tf.train.batch([value], batch_size)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with tf.contrib.slim.queues.QueueRunners(sess):
            sess.run(batch)
            with test.assertRaisesOpError(
                'is closed and has insufficient elements '
                '\\\\(requested %d, current size %d\\\\)' % (batch_size, 0)):
                sess.run(batch)
'''


def _findings(tmp_path, text):
    path = tmp_path / "reader_test.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    return result, [d for d in result.diagnostics if d.code == "QM908"]


def test_the_concatenated_message_is_reported_once_where_it_starts(tmp_path):
    result, found = _findings(tmp_path, PIPELINE)
    assert result.changed  # the pipeline migrates; the expectation is what is left to do
    assert [(d.line, d.column, d.fixed) for d in found] == [(13, 17, False)]
    assert "End of sequence" in found[0].message


def test_a_file_without_queue_code_says_nothing(tmp_path):
    text = "def check(test):\n    return 'is closed and has insufficient elements'\n"
    assert _findings(tmp_path, text)[1] == []
