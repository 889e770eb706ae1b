"""Functions defined inside the function that builds the pipeline, which its per-record code calls,
are read like the module's own (recognise._local_function): a variable or a summary one makes keeps
the queue, naming its line, and a random op one draws gives the map function the program's seed.
Before, such a helper was not read: the variable was migrated into the map function (which fails
when the iterator is made), the summary left the program's graph without a word, and the draw lost
the seed (all three proved under TF 1.8 by a hunt on fresh repositories)."""
import textwrap

from qmigrate import api
from qmigrate.engine import Options

PROGRAM = textwrap.dedent("""\
    import tensorflow as tf


    def examples(batch_size):
        def helper(v):
            %s
            return v * w

        x, = tf.train.slice_input_producer([tf.range(8)], shuffle=False)
        y = helper(tf.to_float(x))
        return tf.train.batch([y], batch_size=batch_size)
    """)


def _migrate(tmp_path, line):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM % line)
    result = api.migrate([str(path)], Options())[0]
    source = result.new_source if result.new_source is not None else result.old_source
    return result, source.decode()


def test_a_variable_made_in_a_local_helper_keeps_the_queue(tmp_path):
    result, source = _migrate(tmp_path, "w = tf.get_variable('w', [], initializer=tf.ones_initializer())")
    assert "tf.train.batch" in source
    reasons = [d.message for d in result.diagnostics if d.code == "QM301"]
    assert reasons and "`tf.get_variable` (line 6, in helper())" in reasons[0], reasons


def test_a_summary_made_in_a_local_helper_keeps_the_queue(tmp_path):
    result, source = _migrate(tmp_path, "w = 2.0; tf.summary.scalar('v', v)")
    assert "tf.train.batch" in source
    assert any("tf.summary.scalar" in d.message and d.code == "QM301" for d in result.diagnostics)


def test_a_draw_in_a_local_helper_gives_the_map_function_the_seed(tmp_path):
    _, drawn = _migrate(tmp_path, "w = tf.random_uniform([])")
    assert "tf.data.Dataset" in drawn and "tf.set_random_seed(graph_seed)" in drawn
    _, plain = _migrate(tmp_path, "w = 2.0")
    assert "tf.data.Dataset" in plain and "graph_seed" not in plain
