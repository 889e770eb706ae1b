"""QM907: tower loops no link reaches get a note while the run leaves queue-based input behind."""
import textwrap

from qmigrate import api
from qmigrate.engine import Options
from qmigrate.untraced_towers import tower_loops

TOWERS = textwrap.dedent("""
    import tensorflow as tf

    def build(model, images, num_gpus):
        losses = []
        for i in range(num_gpus):
            with tf.device('/gpu:%d' % i), tf.variable_scope(tf.get_variable_scope(), reuse=i > 0):
                losses.append(model(images[i]))
        return losses
    """)

# Device loops that only move tensors: placed by an attribute of the loop variable, or no replica.
NOT_TOWERS = textwrap.dedent("""
    import tensorflow as tf

    def reduce(grads_and_vars, devices, tensors):
        out = []
        for g, v in grads_and_vars:
            with tf.device(v.device), tf.variable_scope('x', reuse=True):
                out.append(tf.identity(g))
        for d in devices:
            with tf.device(d):
                out.append(tf.add_n(tensors))
        return out
    """)

LEFT_QUEUE = textwrap.dedent("""
    import tensorflow as tf

    def feed(sess, images, batches):
        queue = tf.FIFOQueue(8, [tf.float32])
        enqueue = queue.enqueue_many([images])
        for batch in batches:
            sess.run(enqueue, feed_dict={images: batch})
        return queue.dequeue_many(4)
    """)

MIGRATED_QUEUE = textwrap.dedent("""
    import tensorflow as tf

    def inputs(files):
        queue = tf.train.string_input_producer(files)
        reader = tf.TFRecordReader()
        _, record = reader.read(queue)
        return tf.train.batch([record], batch_size=8)
    """)


def _run(tmp_path, files, **options):
    paths = []
    for name, source in files.items():
        (tmp_path / name).write_text(source)
        paths.append(str(tmp_path / name))
    return {r.path.rsplit("/", 1)[1]: r for r in api.migrate(paths, Options(**options))}


def test_tower_loops_are_found_by_shape():
    assert [(line, header) for line, _, header, _ in tower_loops(TOWERS.encode(), "QM907")] == [
        (6, "for i in range(num_gpus)")]
    assert tower_loops(NOT_TOWERS.encode(), "QM907") == []
    silenced = TOWERS.replace("range(num_gpus):", "range(num_gpus):  # qmigrate: ignore[QM907]")
    assert tower_loops(silenced.encode(), "QM907") == []


def test_a_note_names_the_queue_code_left_in_the_run(tmp_path):
    results = _run(tmp_path, {"towers.py": TOWERS, "feed.py": LEFT_QUEUE})
    [note] = results["towers.py"].diagnostics
    assert (note.code, note.line, note.note) == ("QM907", 6, True)
    assert "feed.py:5 (QM307)" in note.message
    assert results["towers.py"].remaining == ()  # a note never fails a check


def test_once_the_queue_code_is_migrated_the_note_asks_to_check_the_shards(tmp_path):
    """The input migrated without a link to this loop: if each tower called it, or read one
    batch, every tower would now train on the same examples; the note says what to check."""
    results = _run(tmp_path, {"towers.py": TOWERS, "data.py": MIGRATED_QUEUE})
    assert results["data.py"].changed
    [note] = results["towers.py"].diagnostics
    assert (note.code, note.line, note.note) == ("QM907", 6, True)
    assert "in a run that migrated queue-based input (data.py:" in note.message
    assert "check that it is a list of per-tower batches, each from its own iterator over its own shard" in note.message
    assert results["towers.py"].remaining == ()


def test_the_note_names_the_lists_the_towers_index_and_where_they_come_from(tmp_path):
    """tower_reads.py: element i of lists set in __init__ from its parameters, counted by an
    attribute; a second loop over a list the class fills itself keeps the general note."""
    model = textwrap.dedent('''
        import tensorflow as tf

        class Model(object):
            def __init__(self, hp, images, labels):
                self._hp = hp
                self._images, self._labels = images, labels
                self._losses = []

            def build(self):
                for i in range(self._hp.num_gpus):
                    with tf.device('/gpu:%d' % i), tf.name_scope('tower_%d' % i):
                        self._losses.append(tf.reduce_mean(self._images[i]) + self._labels[i])

            def gradients(self):
                for i in range(self._hp.num_gpus):
                    with tf.device('/gpu:%d' % i), tf.name_scope('tower_%d' % i):
                        tf.gradients(self._losses[i], tf.trainable_variables())
        ''')
    results = _run(tmp_path, {"model.py": model, "data.py": MIGRATED_QUEUE})
    first, second = results["model.py"].diagnostics
    assert ("towers each read element i of `self._images` and `self._labels` (Model() takes them as its "
            "parameters `images` and `labels`)") in first.message
    assert "as many elements as the loop has towers (`self._hp.num_gpus`;" in first.message
    assert ("cannot trace (its towers read element i of `self._losses` (Model.build() fills it)), in a run"
            in second.message)
    results = _run(tmp_path, {"model.py": model, "feed.py": LEFT_QUEUE})
    first, _ = results["model.py"].diagnostics
    assert "while queue-based input is left in this run (feed.py:5 (QM307));" in first.message
    assert "when that input is migrated, make each one batch per tower, each from its own iterator" in first.message


def test_no_note_when_the_run_has_no_queue_input(tmp_path):
    results = _run(tmp_path, {"towers.py": TOWERS, "plain.py": "import os\nprint(os.sep)\n"})
    assert results["towers.py"].diagnostics == ()


def test_the_note_can_be_deselected(tmp_path):
    results = _run(tmp_path, {"towers.py": TOWERS, "feed.py": LEFT_QUEUE}, ignore=("QM907",))
    assert results["towers.py"].diagnostics == ()
