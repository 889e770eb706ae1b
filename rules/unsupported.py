"""Queue APIs that qmigrate recognises but does not rewrite yet: always reported, never silent."""
from qmigrate.diagnostics import Safety
from qmigrate.rules.base import Example, Rule, example_source


class QueueApiNotMigrated(Rule):
    """A queue-based TensorFlow API that qmigrate reports but does not rewrite yet.

    ## Why
    Queue pipelines raise at run time under TF 2 and are deprecated since 1.x; each one left
    behind is a migration still to do.

    ## Fix safety
    Manual: shown, never applied.

    ## Limitations
    Everything: migrate these by hand with the tf.data equivalent named in the message.
    """

    code = "QM001"
    safety = Safety.MANUAL
    names = (
        "tensorflow.train.input_producer",
        "tensorflow.train.range_input_producer",
        "tensorflow.train.limit_epochs",
        "tensorflow.train.match_filenames_once",
        "tensorflow.train.batch_join",
        "tensorflow.train.shuffle_batch_join",
        "tensorflow.train.maybe_batch",
        "tensorflow.train.maybe_batch_join",
        "tensorflow.train.maybe_shuffle_batch",
        "tensorflow.train.maybe_shuffle_batch_join",
        "tensorflow.IdentityReader",
        "tensorflow.LMDBReader",
        "tensorflow.FIFOQueue",
        "tensorflow.PaddingFIFOQueue",
        "tensorflow.RandomShuffleQueue",
        "tensorflow.PriorityQueue",
        "tensorflow.QueueBase",
        "tensorflow.train.QueueRunner",
        "tensorflow.train.add_queue_runner",
        "tensorflow.contrib.slim.python.slim.data.parallel_reader.parallel_read",
        "tensorflow.contrib.slim.dataset_data_provider.DatasetDataProvider",
    )
    message = "queue-based input API is not migrated automatically yet"
    advice = "rewrite it with tf.data by hand (see `qmigrate --explain QM001`)"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.ops import data_flow_ops

            def staged(images, labels):
                queue = data_flow_ops.FIFOQueue(capacity=8, dtypes=[tf.float32, tf.int32])
                enqueue = queue.enqueue([images, labels])
                tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 2))
                return queue.dequeue()
            """),
            after=None,
        ),
    )


class NotebookNotMigrated(Rule):
    """A Jupyter notebook that holds queue-based input code: reported, not rewritten.

    ## Why
    Pipelines in notebooks span cells, and a rewrite that moves code between cells could not
    keep the notebook's layout; so the notebook is reported instead of being passed over.

    ## Fix safety
    Manual: shown, never applied.

    ## Limitations
    Convert it (`jupyter nbconvert --to script`), migrate the script, and copy the cells back.
    """

    code = "QM002"
    safety = Safety.MANUAL
    message = "notebook holds queue-based input code; notebooks are not migrated"
    advice = "convert it with `jupyter nbconvert --to script`, migrate the script, copy the cells back"
    examples = (
        Example(
            before=('{"cells": [{"cell_type": "code", "source": ["import tensorflow as tf\\n", '
                    '"q = tf.train.string_input_producer(files)"]}]}\n'),
            filename="example.ipynb",
        ),
    )
