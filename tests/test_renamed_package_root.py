"""A repository that imports itself as a package (`from app import reader`) but sits in a folder of
another name (a checkout or zip `app-master/`): the program's files are still found through those
imports (program.ModuleIndex.renamed_root_file), so a queue left in one of them keeps the runners
another file starts. Before, the imports loaded no file of the run, the program looked queue-free,
and the `with slim.queues.QueueRunners(sess):` block went: nothing started the prefetch queue's
runner, and the first step waited for ever (bgshih/aster's shape, proved under TF 1.8 by a hunt)."""
import os
import textwrap

from qmigrate import api
from qmigrate.engine import Options

FILES = {
    "reader.py": """\
        import tensorflow as tf


        def records(files):
            queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
            _, value = tf.TFRecordReader().read(queue)
            return tf.train.batch([value], 4)
        """,
    "prefetcher.py": """\
        import tensorflow as tf


        def prefetch(tensors, capacity):
            queue = tf.FIFOQueue(capacity, dtypes=[t.dtype for t in tensors])
            tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue(tensors)]))
            return queue
        """,
    "runner.py": """\
        import tensorflow as tf


        def run(fetch, steps):
            with tf.Session() as sess:
                with tf.contrib.slim.queues.QueueRunners(sess):
                    return [sess.run(fetch) for _ in range(steps)]
        """,
    "evaluate.py": """\
        from app import prefetcher, reader, runner


        def evaluate(files):
            queue = prefetcher.prefetch([reader.records(files)], 8)
            return runner.run(queue.dequeue(), 3)
        """,
}


def _run(folder):
    os.makedirs(folder)
    paths = []
    for name, text in FILES.items():
        paths.append(os.path.join(folder, name))
        with open(paths[-1], "w") as handle:
            handle.write(textwrap.dedent(text))
    return {os.path.basename(result.path): result for result in api.migrate(paths, Options())}


def test_runners_stay_while_a_queue_of_the_program_stays_whatever_the_folder_is_named(tmp_path):
    for folder in ("app", "app-master"):
        results = _run(str(tmp_path / folder))
        assert results["reader.py"].new_source is not None  # the pipeline migrates
        assert results["prefetcher.py"].new_source is None  # the prefetch queue stays
        kept = [d for d in results["runner.py"].diagnostics if d.code == "QM504"]
        assert results["runner.py"].new_source is None and kept and not kept[0].fixed, folder
        assert "prefetcher.py" in kept[0].message, kept[0].message
