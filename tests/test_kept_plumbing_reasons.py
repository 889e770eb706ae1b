"""Queue runners kept for the run's reason say which one holds (the message named both: "queue code
is left in the migrated files, or none of them had a pipeline to migrate"; found outside the
corpus, in facenet's scripts): no pipeline of the run was migrated, this file still has queue
code, or a file of its program does (named, with its line)."""
import os

from qmigrate import api

RUNNERS = '''import tensorflow as tf


def run(sess, op):
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    sess.run(op)
    coord.request_stop()
    coord.join(threads)
'''

MIGRATES = '''import tensorflow as tf


def batches(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    return tf.train.batch([value], batch_size)
'''

# A queue whose records come in as a parameter: it stays.
STAYS = '''import tensorflow as tf


def mixed(tensors, batch_size):
    queue = tf.RandomShuffleQueue(100, 10, [tf.string])
    enqueue = queue.enqueue(tensors)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue]))
    return queue.dequeue_many(batch_size)
'''

SCRIPT = '''import helper
import staying


def main(sess, tensors):
    helper.run(sess, staying.mixed(tensors, 4))
'''


def _reasons(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)], jobs=1)}
    return {name: {d.code: d.message for d in result.remaining} for name, result in results.items()}


def test_no_pipeline_migrated(tmp_path):
    reasons = _reasons(tmp_path, {"helper.py": RUNNERS})
    assert "not rewritten: no pipeline of the files migrated together was migrated" in reasons["helper.py"]["QM501"]


def test_queue_code_left_in_the_file(tmp_path):
    reasons = _reasons(tmp_path, {"staying.py": STAYS + "\n\n" + RUNNERS, "migrates.py": MIGRATES})
    assert "not rewritten: queue code is left in this file;" in reasons["staying.py"]["QM501"]


def test_queue_code_left_in_a_file_of_its_program(tmp_path):
    reasons = _reasons(tmp_path, {"helper.py": RUNNERS, "staying.py": STAYS, "script.py": SCRIPT,
                                  "migrates.py": MIGRATES})
    runners = reasons["helper.py"]["QM501"]
    assert "not rewritten: queue code is left in a file of its program: staying.py:5 (QM307)" in runners


def test_an_api_its_target_lacks_is_not_queue_code(tmp_path):
    # `tf.scalar_summary` (QM906, gone since TF 1.0) is left in the file, but it is no queue: the
    # runners stay for the queue of another file of the program, and say so
    old_api = RUNNERS.replace("    sess.run(op)\n", "    tf.scalar_summary('op', op)\n    sess.run(op)\n")
    reasons = _reasons(tmp_path, {"helper.py": old_api, "staying.py": STAYS, "script.py": SCRIPT,
                                  "migrates.py": MIGRATES})
    assert "QM906" in reasons["helper.py"]
    runners = reasons["helper.py"]["QM501"]
    assert "not rewritten: queue code is left in a file of its program: staying.py:5 (QM307)" in runners


def test_plumbing_sharing_its_line_says_so(tmp_path):
    # Found outside the corpus (a slim script): `coord = ...; threads = ...` stayed after its
    # program's last queue with the reason that a module may be loaded by name, which none was.
    path = tmp_path / "train.py"
    path.write_text(
        "import tensorflow as tf\n\n\n"
        "def inputs(files, batch_size):\n"
        "    queue = tf.train.string_input_producer(files, shuffle=False)\n"
        "    _, record = tf.TFRecordReader().read(queue)\n"
        "    return tf.train.batch([record], batch_size=batch_size)\n\n\n"
        "def main(files):\n"
        "    batch = inputs(files, 2)\n"
        "    with tf.Session() as sess:\n"
        "        coord = tf.train.Coordinator(); threads = tf.train.start_queue_runners(sess=sess, coord=coord)\n"
        "        print(sess.run(batch))\n"
        "        coord.request_stop()\n"
        "        coord.join(threads)\n")
    result, = api.migrate([str(path)], jobs=1)
    kept = {d.code: d.message for d in result.remaining}
    assert set(kept) == {"QM501", "QM502"}
    for message in kept.values():
        assert "not rewritten: it shares its line with other statements (`;`)" in message
