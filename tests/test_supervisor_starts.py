"""`sv.start_queue_runners(sess)` of a tf.train.Supervisor is plumbing like
tf.train.start_queue_runners(sess) (rules/queue_runners.py: supervisors, supervisor_starts): it
goes with the last queue of its program, and stays, with the reason, while one is left."""
import textwrap

from qmigrate import api

INPUTS = '''\
import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, record = reader.read(queue)
    return tf.train.batch([record], batch_size=batch_size)
'''

TRAIN = '''\
import tensorflow as tf

import data


class Evaluator(object):
    def __init__(self, files, log_dir):
        self.records = data.inputs(files, 8)
        self.sv = tf.train.Supervisor(logdir=log_dir)

    def run(self, fresh):
        with self.sv.managed_session(start_standard_services=False) as session:
            if fresh:
                self.sv.start_queue_runners(session)
            threads = self.sv.start_queue_runners(sess=session)
            while not self.sv.should_stop():
                session.run(self.records)
            self.sv.coord.join(threads)
'''


def _run(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return {r.path[len(str(tmp_path)) + 1:]: r for r in api.migrate([str(tmp_path)])}


def test_the_supervisors_runner_starts_go_with_the_programs_last_queue(tmp_path):
    results = _run(tmp_path, {"data.py": INPUTS, "train.py": TRAIN})
    train = results["train.py"]
    assert [(d.line, d.code, d.fixed) for d in train.diagnostics] == [(14, "QM501", True), (15, "QM501", True)]
    output = train.new_source.decode()
    assert "start_queue_runners" not in output and "join(threads)" not in output
    assert "self.sv = tf.train.Supervisor(logdir=log_dir)" in output and "self.sv.should_stop()" in output
    compile(output, "train.py", "exec")


def test_they_stay_while_the_program_builds_a_queue(tmp_path):
    kept = INPUTS.replace("shuffle=False)", "shuffle=False)\n    tf.train.limit_epochs(files, 1)")
    results = _run(tmp_path, {"data.py": kept, "train.py": TRAIN})
    train = results["train.py"]
    assert not train.changed
    assert [(d.line, d.code, d.fixed) for d in train.diagnostics] == [(14, "QM501", False), (15, "QM501", False)]
    assert all("queue code is left" in d.message and "data.py" in d.message for d in train.diagnostics)


def test_a_supervisor_handed_runners_of_its_own_or_a_name_bound_twice_is_not_followed(tmp_path):
    text = TRAIN.replace("self.sv.start_queue_runners(session)", "self.sv.start_queue_runners(session, [])")
    text += "\n\ndef other(sv):\n    sv = tf.train.Supervisor()\n    sv = None\n    sv.start_queue_runners(None)\n"
    train = _run(tmp_path, {"data.py": INPUTS, "train.py": text})["train.py"]
    assert [(d.line, d.code) for d in train.diagnostics] == [(15, "QM501")]
    assert "self.sv.start_queue_runners(session, [])" in train.new_source.decode()


def test_a_join_by_a_supervisors_coordinator_handed_an_exception_stays(tmp_path):
    """`sv.coord.request_stop(e)` hands the error to the join, which raises it again: the join of
    the runners' threads stays, over no threads."""
    text = TRAIN.replace('''            while not self.sv.should_stop():
                session.run(self.records)
''', '''            try:
                session.run(self.records)
            except Exception as error:
                self.sv.coord.request_stop(error)
''')
    train = _run(tmp_path, {"data.py": INPUTS, "train.py": text})["train.py"]
    output = train.new_source.decode()
    assert "threads = []" in output and "self.sv.coord.join(threads)" in output
    assert "start_queue_runners" not in output
    compile(output, "train.py", "exec")


# tensorflow/models' inception_distributed_train.py, copied widely: the collection read by hand,
# its list handed to the supervisor; the SyncReplicasOptimizer's chief runner started apart.
DISTRIBUTED = '''\
import tensorflow as tf

import data


def train(files, train_op, opt, is_chief, log_dir):
    records = data.inputs(files, 8)
    sv = tf.train.Supervisor(is_chief=is_chief, logdir=log_dir)
    sess = sv.prepare_or_wait_for_session('')
    queue_runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    sv.start_queue_runners(sess, queue_runners)
    if is_chief:
        sv.start_queue_runners(sess, [opt.get_chief_queue_runner()])
    {extra}while not sv.should_stop():
        sess.run([train_op, records])
'''


def test_the_collection_read_by_hand_and_started_by_the_supervisor_goes_with_the_last_queue(tmp_path):
    results = _run(tmp_path, {"data.py": INPUTS, "train.py": DISTRIBUTED.format(extra="")})
    train = results["train.py"]
    assert [(d.line, d.code, d.fixed) for d in train.diagnostics] == [(11, "QM501", True)]
    output = train.new_source.decode()
    assert "QUEUE_RUNNERS" not in output and "queue_runners = " not in output
    assert "sv.start_queue_runners(sess, queue_runners)" not in output
    assert "sv.start_queue_runners(sess, [opt.get_chief_queue_runner()])" in output  # not input: it stays
    compile(output, "train.py", "exec")


def test_a_collection_list_used_beyond_the_start_stays_bound(tmp_path):
    extra = "print(len(queue_runners))\n    "
    results = _run(tmp_path, {"data.py": INPUTS, "train.py": DISTRIBUTED.format(extra=extra)})
    train = results["train.py"]
    assert [(d.line, d.code, d.fixed) for d in train.diagnostics] == [(11, "QM501", True)]
    output = train.new_source.decode()
    assert "queue_runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)\n" in output
    assert "sv.start_queue_runners(sess, queue_runners)" not in output


def test_while_a_queue_is_left_the_start_stays_with_the_programs_reason(tmp_path):
    kept = INPUTS.replace("shuffle=False)", "shuffle=False)\n    tf.train.limit_epochs(files, 1)")
    results = _run(tmp_path, {"data.py": kept, "train.py": DISTRIBUTED.format(extra="")})
    train = results["train.py"]
    assert [(d.line, d.code, d.fixed) for d in train.diagnostics] == [(11, "QM501", False)]
    assert "QM307" not in {d.code for d in train.diagnostics}  # not runners of the module's own making
