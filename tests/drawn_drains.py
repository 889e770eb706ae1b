"""Drains of pipelines whose records carry an id and a per-record draw (test_record_draws,
test_drawn_arguments): a script run under TF 1.8, and the checks on what it gave."""
import os
import subprocess
import textwrap

_SCRIPT = textwrap.dedent('''\
    import sys
    import tensorflow as tf
    sys.path.insert(0, sys.argv[1])
    import {module}
    files = []
    for f in range(2):
        files.append("%s/ids_%d.tfrecord" % (sys.argv[2], f))
        with tf.python_io.TFRecordWriter(files[-1]) as writer:
            for i in range(30):
                writer.write(str(f * 30 + i).encode())
    tf.set_random_seed(5)
    batch = {call}
    pairs = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while True:
                pairs.append(sess.run(batch).tolist())
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    print(repr(pairs))
    ''')


def drain(python, folder, data_dir, module: str, call: str, *args):
    """The batches of [id, draw] pairs `call` (an expression over `files`, `sys.argv[3:]`) gives
    from 60 records of two files, with `module` imported from `folder`."""
    script = _SCRIPT.format(module=module, call=call)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([python, "-c", script, str(folder), str(data_dir)] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return eval(done.stdout.strip().splitlines()[-1])


def check_drawn_per_record(batches, choices, label):
    """Each id twice in batches of 8, every draw among `choices`, and several draws within most
    batches (one draw per batch would give one)."""
    pairs = [pair for batch in batches for pair in batch]
    assert sorted(pair[0] for pair in pairs) == sorted(list(range(60)) * 2), label
    assert [len(batch) for batch in batches] == [8] * 15, label
    assert {pair[1] for pair in pairs} <= set(choices), label
    assert sum(len({pair[1] for pair in batch}) > 1 for batch in batches) >= 12, label
