"""A random draw made before the chain for its per-record code moves into the map function
(record_draws.py): the queue's enqueue ran it once per record; a map function capturing it
would hold one value, and a one-shot iterator cannot capture it at all."""
import os
import subprocess
import textwrap

from qmigrate import api
from qmigrate.engine import Options
from tfenv import tf_python

READER = '''\
import tensorflow as tf


def read_one(filename_queue, side):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    record_id = tf.string_to_number(serialized, tf.int32)
    return tf.stack([record_id, side])


def next_batch(files, batch_size, sides):
{draw}
    filename_queue = tf.train.string_input_producer(files, num_epochs=2)
    pair = read_one(filename_queue, side)
    return tf.train.batch([pair], batch_size=batch_size, allow_smaller_final_batch=True)
'''

DRAW = "    side = tf.constant(sides)\n    side = tf.random_shuffle(side)[0]"


def _migrate(folder, draw=DRAW, after=""):
    folder.mkdir(exist_ok=True)
    (folder / "reader.py").write_text(READER.format(draw=draw) + after)
    results = api.migrate([str(folder)], Options(), write=True)
    assert not [r for r in results if r.error]
    return results[0], (folder / "reader.py").read_text()


def test_the_draw_and_the_constant_it_reads_move_into_the_map_function(tmp_path):
    result, new = _migrate(tmp_path / "out")
    assert result.changed and not result.remaining
    function = new[new.index("def parse_record"):new.index("dataset =")]
    assert "tf.random_shuffle(" in function and "tf.constant(" in function
    assert "tf.random_shuffle(" not in new.replace(function, "")


def test_a_draw_also_read_after_the_batch_stays_and_the_pipeline_with_it(tmp_path):
    # The code after the batch saw its own draw at each step: the pipeline stays, with the reason.
    draw = "    side = tf.random_uniform([], 2, 9, tf.int32)\n    tf.summary.scalar('side', side)"
    result, new = _migrate(tmp_path / "out", draw=draw)
    assert not result.changed
    assert any("made at line" in d.message and "stateful op" in d.message for d in result.remaining)


def test_a_variable_is_never_moved(tmp_path):
    draw = "    side = tf.Variable(3, trainable=False)"
    result, _ = _migrate(tmp_path / "out", draw=draw)
    assert not result.changed
    assert any("`side`" in d.message for d in result.remaining)


DRAIN = textwrap.dedent('''\
    import sys
    import tensorflow as tf
    sys.path.insert(0, sys.argv[1])
    import reader
    files = []
    for f in range(2):
        files.append("%s/ids_%d.tfrecord" % (sys.argv[2], f))
        with tf.python_io.TFRecordWriter(files[-1]) as writer:
            for i in range(30):
                writer.write(str(f * 30 + i).encode())
    tf.set_random_seed(int(sys.argv[3]))
    batch = reader.next_batch(files, 8, [2, 3, 4, 5, 6, 7])
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


def test_each_record_draws_its_own_value_before_and_after(tmp_path):
    """Under TF 1.8: 60 records, 2 epochs, batches of 8: each id twice, the sides drawn per record
    (several values within a batch), from the same choices, before and after."""
    python = tf_python("1.8")
    source, out = tmp_path / "source", tmp_path / "out"
    source.mkdir()
    (source / "reader.py").write_text(READER.format(draw=DRAW))
    _migrate(out)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    drained = {}
    for folder in (source, out):
        done = subprocess.run([python, "-c", DRAIN, str(folder), str(tmp_path), "3"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        drained[folder] = eval(done.stdout.strip().splitlines()[-1])
    for folder, batches in drained.items():
        pairs = [pair for batch in batches for pair in batch]
        assert sorted(pair[0] for pair in pairs) == sorted(list(range(60)) * 2), folder
        assert [len(batch) for batch in batches] == [8] * 15, folder
        assert {pair[1] for pair in pairs} <= {2, 3, 4, 5, 6, 7}, folder
        # A draw per record: the sides differ within most batches (one draw per batch would not).
        assert sum(len({pair[1] for pair in batch}) > 1 for batch in batches) >= 12, folder
