"""A `tf.train.Coordinator` that only stops and joins the program's own `threading.Thread`s, in a
file with no queue code, is not queue plumbing: `--check` reports nothing and exits 0 (it reported
QM502 and failed the build on data-conversion scripts and RL workers, found on repositories
outside the corpus). Coordinators handed anywhere else, or in files with queue code, are still
reported (thread_coordinators.py)."""
from click.testing import CliRunner

from qmigrate.cli import main

# Workers that get the coordinator through the Thread's arguments.
HANDED = '''import threading

import tensorflow as tf


def work(index, coord, results):
    while not coord.should_stop():
        results.append(index)
        if len(results) > 10:
            coord.request_stop()


def run():
    coord = tf.train.Coordinator()
    results = []
    workers = [threading.Thread(target=work, args=(i, coord, results)) for i in range(3)]
    for worker in workers:
        worker.start()
    coord.join(workers)
    return results
'''

# A converter that only joins its threads with the coordinator.
JOINED = '''import threading

import tensorflow as tf


def convert_shard(index, names):
    return [name.upper() for name in names[index::4]]


def convert(names):
    coord = tf.train.Coordinator()
    threads = []
    for index in range(4):
        thread = threading.Thread(target=convert_shard, args=(index, names))
        thread.start()
        threads.append(thread)
    coord.join(threads)
'''

# A module-level coordinator that workers' methods read.
GLOBAL = '''import threading

import tensorflow as tf


class Worker(object):
    def __init__(self, name):
        self.name = name

    def work(self):
        while not COORD.should_stop():
            COORD.request_stop()


if __name__ == '__main__':
    COORD = tf.train.Coordinator()
    threads = [threading.Thread(target=Worker('w%d' % i).work) for i in range(2)]
    for thread in threads:
        thread.start()
    COORD.join(threads)
'''

# Handed to a function qmigrate does not follow (it may start queue runners with it).
PASSED = JOINED.replace("    coord.join(threads)\n", "    coord.join(threads)\n    start_more(coord)\n")

# Beside a queue of the file's own, fed by those threads.
WITH_QUEUE = HANDED.replace("    results = []\n", "    results = []\n    queue = tf.FIFOQueue(10, [tf.int32])\n")


def _check(tmp_path, text):
    path = tmp_path / "workers.py"
    path.write_text(text)
    return CliRunner().invoke(main, [str(path), "--check"])


def test_a_coordinator_of_python_threads_only_is_no_queue_code(tmp_path):
    for text in (HANDED, JOINED, GLOBAL):
        run = _check(tmp_path, text)
        assert run.exit_code == 0, run.output
        assert "QM502" not in run.output


def test_a_coordinator_handed_elsewhere_or_beside_queue_code_is_still_reported(tmp_path):
    for text in (PASSED, WITH_QUEUE):
        run = _check(tmp_path, text)
        assert run.exit_code == 1, run.output
        assert "QM502" in run.output


def test_beside_queue_code_it_says_what_the_coordinator_does(tmp_path):
    run = _check(tmp_path, WITH_QUEUE)
    coordinator = next(line for line in run.output.splitlines() if "QM502" in line)
    assert "it coordinates the program's own threading.Thread workers" in coordinator
    assert "to do: keep it for those threads" in coordinator
    passed = next(line for line in _check(tmp_path, PASSED).output.splitlines() if "QM502" in line)
    assert "threading.Thread workers" not in passed  # handed to a function qmigrate does not follow


# A training script in vanhuyz/CycleGAN's shape: an error the loop hits is handed to the
# coordinator, whose join() in `finally` raises it again once the checkpoint is saved.
TRAINER = '''import tensorflow as tf


def train(files, steps):
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, record = reader.read(queue)
    x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([], tf.float32)})['x']
    xs = tf.train.shuffle_batch([x], 4, capacity=40, min_after_dequeue=20)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            step = 0
            while not coord.should_stop() and step < steps:
                sess.run(xs)
                step += 1
        except KeyboardInterrupt:
            coord.request_stop()
        except Exception as e:
            coord.request_stop(e)
        finally:
            coord.request_stop()
            coord.join(threads)
'''


def test_a_coordinator_kept_for_the_error_it_carries_asks_for_no_change(tmp_path):
    """The migration keeps the coordinator (its join() raises the error handed to it) with
    `threads = []`: that is a note, not a finding, so `--check` of the migration passes, and
    running qmigrate again on its output finds nothing (it reported QM502 with a to-do, and failed
    the build, before and after `--write`)."""
    path = tmp_path / "train.py"
    path.write_text(TRAINER)
    checked = CliRunner().invoke(main, [str(path), "--check"])
    coordinator = next(line for line in checked.output.splitlines() if "QM502" in line)
    assert "[note]" in coordinator and "no change needed" in coordinator and "to do" not in coordinator
    written = CliRunner().invoke(main, [str(path), "--write"])
    assert written.exit_code == 0, written.output
    text = path.read_text()
    assert "threads = []" in text and "coord.request_stop(e)" in text and "coord.join(threads)" in text
    again = CliRunner().invoke(main, [str(path), "--check"])
    assert again.exit_code == 0, again.output
    assert "QM5" not in again.output


def test_with_nothing_else_a_coordinator_its_methods_alone_use_is_no_queue_code(tmp_path):
    text = "import tensorflow as tf\n\n\ndef run(sess, step):\n    coord = tf.train.Coordinator()\n" \
           "    threads = []\n    while not coord.should_stop():\n        sess.run(step)\n    coord.join(threads)\n"
    run = _check(tmp_path, text)
    assert run.exit_code == 0 and "QM502" not in run.output, run.output
    run = _check(tmp_path, text.replace("    threads = []\n", "    threads = start(sess, coord)\n"))
    assert run.exit_code == 1 and "QM502" in run.output  # handed to code that may start runners with it


# What a migration of deeplab-resnet's shape leaves: the reader now reads with tf.data, and the
# train script hands its coordinator to the reader's constructor (for queue runners it no longer
# starts); `threads = []` is what start_queue_runners became.
READER = '''import tensorflow as tf


class ImageReader(object):
    def __init__(self, files, coord):
        self.coord = coord
        dataset = tf.data.Dataset.from_tensor_slices(files).map(tf.read_file).repeat()
        self.image = dataset.make_one_shot_iterator().get_next()
'''
SCRIPT = '''import tensorflow as tf

from reader import ImageReader


def main(files, steps):
    coord = tf.train.Coordinator()
    reader = ImageReader(files, coord)
    with tf.Session() as sess:
        threads = []
        for _ in range(steps):
            sess.run(reader.image)
        coord.request_stop()
        coord.join(threads)
'''


def test_a_rerun_on_a_migrated_program_asks_nothing_of_its_coordinator(tmp_path):
    """A coordinator handed to code of the program (which may have used it for runners) is kept
    with a to-do while queue code is left; once no file of its program builds queues, a run says
    it needs no change and `--check` passes (it said "the queues of its program still need them")."""
    (tmp_path / "reader.py").write_text(READER)
    (tmp_path / "train.py").write_text(SCRIPT)
    run = CliRunner().invoke(main, [str(tmp_path), "--check"])
    assert run.exit_code == 0, run.output
    line = next(line for line in run.output.splitlines() if "QM502" in line)
    assert "[note]" in line and "no change needed: no file of its program" in line
    (tmp_path / "reader.py").write_text(READER + "\n\nQUEUE = tf.FIFOQueue(10, [tf.string])\n")
    run = CliRunner().invoke(main, [str(tmp_path), "--check"])
    assert run.exit_code == 1
    line = next(line for line in run.output.splitlines() if "QM502" in line)
    assert "[note]" not in line and "to do" in line
