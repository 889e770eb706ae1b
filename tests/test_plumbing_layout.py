"""Runner plumbing removed with the last queue leaves the code around it in its paragraphs: the
blank line that opened the removed statements opens what follows them (rules/queue_runners.py)."""
from qmigrate import api

SCRIPT = '''import tensorflow as tf


def train(files, steps):
    queue = tf.train.string_input_producer(files)
    _, record = tf.TFRecordReader().read(queue)
    batch = tf.train.batch([record], 4)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())

        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        for _ in range(steps):
            sess.run(batch)
        coord.request_stop()
        coord.join(threads)
'''


def test_the_blank_line_before_removed_plumbing_stays(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    [result] = api.migrate([str(path)])
    assert all(d.fixed for d in result.diagnostics), result.diagnostics
    text = result.new_source.decode()
    assert "sess.run(tf.local_variables_initializer())\n\n        for _ in range(steps):" in text
    assert text.endswith("            sess.run(batch)\n")  # nothing opened after the loop


def test_no_blank_line_opens_a_block_whose_first_statements_went(tmp_path):
    path = tmp_path / "train.py"
    # the `with` opens with a blank line and the plumbing: the loop after it opens it now
    path.write_text(SCRIPT.replace("        sess.run(tf.local_variables_initializer())\n", ""))
    [result] = api.migrate([str(path)])
    assert "as sess:\n        for _ in range(steps):" in result.new_source.decode()


SCOPED = '''import tensorflow as tf


def inputs(files, batch_size):
    with tf.name_scope("input"):
        queue = tf.train.string_input_producer(files)
        _, record = tf.TFRecordReader().read(queue)

        size = batch_size * 2
        return tf.train.batch([record], size)
'''


def test_a_with_whose_first_statements_went_opens_without_a_blank_line(tmp_path):
    # the pipeline's first statements went; the blank line parted the kept one from them
    path = tmp_path / "inputs.py"
    path.write_text(SCOPED)
    [result] = api.migrate([str(path)])
    text = result.new_source.decode()
    assert 'with tf.name_scope("input"):\n        size = batch_size * 2\n' in text, text


IMPORTED = '''import multiprocessing
import time

import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    _, record = tf.TFRecordReader().read(queue)
    return tf.train.batch([record], batch_size, num_threads=multiprocessing.cpu_count())
'''


def test_a_standard_library_import_only_the_queue_used_goes(tmp_path):
    # `multiprocessing` served only the batching's threads; `time`, never used, is the user's
    path = tmp_path / "inputs.py"
    path.write_text(IMPORTED)
    [result] = api.migrate([str(path)])
    text = result.new_source.decode()
    assert "make_one_shot_iterator" in text
    assert text.startswith("import time\n\nimport tensorflow as tf\n"), text
