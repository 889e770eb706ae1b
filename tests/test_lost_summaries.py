"""Summaries made by per-record code (QM910): by default the chain keeps its queue, saying so;
with --unsafe it is migrated, and the summary is made in the map function's graph, where nothing
reads it. Collection entries and variables keep the queue in either mode."""
import os
import subprocess
import textwrap

import pytest

from qmigrate import api
from qmigrate.engine import Options
from tfenv import dict_records, tf_python

PREPROCESSING = """\
    import tensorflow as tf
    from tensorflow.python.ops import control_flow_ops


    def _with_random_selector(x, func, num_cases):
        # slim's apply_with_random_selector: a switch and a merge over a random case
        sel = tf.random_uniform([], maxval=num_cases, dtype=tf.int32)
        return control_flow_ops.merge([func(control_flow_ops.switch(x, tf.equal(sel, case))[1], case)
                                       for case in range(num_cases)])[0]


    def preprocess_for_train(x, first=True):
        x = _with_random_selector(x, lambda v, case: v * (1.0 + 0.0 * case), 2)
        if first:
            %s
        return x


    def get_preprocessing(name):
        def preprocessing_fn(x):
            return preprocess_for_train(x)
        return preprocessing_fn
    """
TRAIN = """\
    import sys

    import tensorflow as tf

    import preprocessing


    def inputs(files, batch_size=5):
        preprocess = preprocessing.get_preprocessing('train')
        queue = tf.train.string_input_producer(files, num_epochs=2)
        _, value = tf.TFRecordReader().read(queue)
        parsed = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], tf.float32),
                                                 'id': tf.FixedLenFeature([], tf.int64)})
        x = preprocess(parsed['x'])
        return tf.train.batch([x, parsed['id']], batch_size=batch_size, allow_smaller_final_batch=True)


    def main(files):
        xs, ids = inputs(files)
        merged = tf.summary.merge_all()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            seen = []
            try:
                while not coord.should_stop():
                    batch_xs, batch_ids = sess.run([xs, ids])
                    assert (batch_xs[:, 0] == batch_ids).all()
                    seen.extend(batch_ids.tolist())
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads)
        print(merged is not None, sorted(seen))


    if __name__ == '__main__':
        main(sys.argv[1:])
    """


def _program(folder, made):
    folder.mkdir()
    (folder / "preprocessing.py").write_text(textwrap.dedent(PREPROCESSING % made))
    (folder / "train.py").write_text(textwrap.dedent(TRAIN))
    return folder


def _results(folder, unsafe):
    return {os.path.basename(r.path): r for r in api.migrate([str(folder)], Options(unsafe=unsafe))}


def test_by_default_the_queue_stays_and_the_summary_is_named(tmp_path):
    results = _results(_program(tmp_path / "p", "tf.summary.histogram('x', x)"), unsafe=False)
    train = results["train.py"]
    assert not train.changed
    lost = [d for d in train.diagnostics if d.code == "QM910"]
    assert len(lost) == 1 and not lost[0].fixed
    assert "`--unsafe` migrates it" in next(d.message for d in train.diagnostics if d.code == "QM301")


@pytest.mark.parametrize("made", ["tf.add_to_collection('xs', x)", "tf.Variable(0.0)"])
def test_a_collection_entry_or_a_variable_keeps_the_queue_even_unsafe(tmp_path, made):
    results = _results(_program(tmp_path / "p", made), unsafe=True)
    assert not results["train.py"].changed
    assert not [d for d in results["train.py"].diagnostics if d.code == "QM910"]


def test_unsafe_migrates_and_reads_the_same_examples_under_tf18(tmp_path):
    # Before: the histogram is in the program's graph. After: the pipeline is a dataset whose map
    # function makes it, and merge_all() finds none; the examples are the same, twice each.
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    before = _program(tmp_path / "before", "tf.summary.histogram('x', x)")
    after = _program(tmp_path / "after", "tf.summary.histogram('x', x)")
    results = api.migrate([str(after)], Options(unsafe=True), write=True)
    train = next(r for r in results if r.path.endswith("train.py"))
    assert [d.fixed for d in train.diagnostics if d.code == "QM910"] == [True]
    assert "start_queue_runners" not in (after / "train.py").read_text()
    seen = {}
    for label, folder in (("before", before), ("after", after)):
        done = subprocess.run([python, str(folder / "train.py")] + files, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
                              env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
        assert done.returncode == 0, done.stderr[-2000:]
        seen[label] = done.stdout.splitlines()[-1]
    ids = str(sorted(list(range(50)) * 2))
    assert seen["before"] == "True %s" % ids
    assert seen["after"] == "False %s" % ids
