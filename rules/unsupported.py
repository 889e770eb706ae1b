"""Queue APIs that qmigrate reports but does not rewrite, each with its own reason and to-do;
queues that are not input pipelines; notebooks."""
from typing import Dict, Optional, Tuple

from qmigrate.diagnostics import Safety
from qmigrate.rules.base import Example, Rule, example_source

_SLIM_PROVIDER = ("read with tf.data.TFRecordDataset(files) (interleave for parallel reads), decode each "
                  "record with dataset.map(lambda r: decoder.decode(r, items)), then batch")

_LEARN_READ = ("tf.contrib.learn reads the files through queues of its own (a file name queue, reader threads, "
               "a shuffling or batching queue and their runners); qmigrate does not rewrite it yet")
_LEARN_EXAMPLES = ("read the files with tf.data.TFRecordDataset (interleave for several reader threads), shuffle "
                   "and repeat for randomize_input and num_epochs, then batch, and take a one-shot iterator's "
                   "get_next()")
_LEARN_FEATURES = ("tf.contrib.data.make_batched_features_dataset(file_pattern, batch_size, features, "
                   "num_epochs=num_epochs, shuffle=randomize_input) and a one-shot iterator's get_next() "
                   "(tf.data.experimental from 1.12)")

_FED_INPUT_FN = ("its input function feeds the arrays through a queue of its own, filled by a Python thread (a "
                 "FeedingQueueRunner) that start_queue_runners starts")
_FED_INPUT_FN_TODO = ("tf.data.Dataset.from_tensor_slices((features, labels)), shuffled and repeated as it was "
                      "asked, batched, and a one-shot iterator's get_next() in the input function")

_TIMESERIES = ("tf.contrib.timeseries reads and windows its series through queues of its own (read_full(), "
               "create_batch()), filled by queue runners that start_queue_runners starts")
_TIMESERIES_TODO = ("keep it with its queue runners (an Estimator starts them), or read the series with tf.data "
                    "(from_tensor_slices or TextLineDataset) and window it with Dataset.batch by hand")

# canonical name -> (why it is not rewritten, what to do)
NOT_MIGRATED: Dict[str, Tuple[str, str]] = {
    "tensorflow.train.limit_epochs": (
        "it counts epochs in a local variable; the data it guards is not a queue qmigrate can follow",
        "Dataset.repeat(num_epochs) on the dataset that replaces the tensor"),
    "tensorflow.IdentityReader": (
        "it reads the queued work units themselves, which have no file-reading dataset",
        "use the work units' dataset directly (from_tensor_slices) and map over it"),
    "tensorflow.LMDBReader": (
        "tf.data has no LMDB dataset in any TF 1.x",
        "read the database in Python with the lmdb package and feed tf.data.Dataset.from_generator"),
    "tensorflow.ReaderBase": (
        "a custom reader class; what it reads is not known",
        "write a tf.data source for the format (from_generator, or a dataset of file names plus map)"),
    "tensorflow.train.maybe_batch_join": (
        "several readers and a computed keep_input: not modelled",
        "Dataset.interleave(...), then filter(keep) and batch"),
    "tensorflow.train.maybe_shuffle_batch_join": (
        "several readers and a computed keep_input: not modelled",
        "Dataset.interleave(...), then filter(keep), shuffle(capacity) and batch"),
    "tensorflow.contrib.training.bucket": (
        "its buckets are chosen by a computed index; tf.data groups by key differently",
        "tf.contrib.data.group_by_window(key_func, reduce_func, window_size) (tf.data.experimental from 1.12)"),
    "tensorflow.contrib.training.batch_sequences_with_states": (
        "it keeps per-sequence RNN state in a queue-backed state saver; tf.data has no counterpart",
        "split sequences into fixed windows with Dataset.window/batch and carry RNN state in the model"),
    "tensorflow.contrib.training.SequenceQueueingStateSaver": (
        "it keeps per-sequence RNN state in queues; tf.data has no counterpart",
        "carry RNN state in the model and feed windows of each sequence from a dataset"),
    "tensorflow.contrib.training.stratified_sample": (
        "class-balanced sampling through queues; not modelled",
        "tf.contrib.data.rejection_resample(class_func, target_dist) (tf.data.experimental from 1.12)"),
    "tensorflow.contrib.training.rejection_sample": (
        "rejection sampling through queues; not modelled",
        "Dataset.filter with a random acceptance test, or tf.contrib.data.rejection_resample"),
    "tensorflow.PriorityQueue": (
        "a priority queue orders by a computed key; tf.data has no counterpart",
        "keep it if it is not an input pipeline; otherwise sort in Python and use from_generator"),
    "tensorflow.QueueBase": (
        "a queue built from a handle or a subclass; its role is unknown",
        "replace it with the tf.data pipeline it feeds, or keep it if it is not input"),
    "tensorflow.contrib.training.FeedingQueueRunner": (
        "it feeds a queue from Python (numpy or pandas input functions)",
        "tf.data.Dataset.from_tensor_slices(arrays) for in-memory data, or from_generator"),
    "tensorflow.estimator.inputs.numpy_input_fn": (_FED_INPUT_FN, _FED_INPUT_FN_TODO),
    "tensorflow.estimator.inputs.pandas_input_fn": (_FED_INPUT_FN, _FED_INPUT_FN_TODO),
    "tensorflow.contrib.learn.numpy_input_fn": (_FED_INPUT_FN, _FED_INPUT_FN_TODO),  # (and learn.io.)
    "tensorflow.contrib.learn.pandas_input_fn": (_FED_INPUT_FN, _FED_INPUT_FN_TODO),
    "tensorflow.contrib.learn.generator_input_fn": (
        "its input function feeds what the generator yields through a queue of its own, filled by a Python "
        "thread (a FeedingQueueRunner) that start_queue_runners starts",
        "tf.data.Dataset.from_generator(generator, output_types), batched, and a one-shot iterator's get_next() "
        "in the input function"),
    "tensorflow.contrib.timeseries.RandomWindowInputFn": (_TIMESERIES, _TIMESERIES_TODO),
    "tensorflow.contrib.timeseries.WholeDatasetInputFn": (_TIMESERIES, _TIMESERIES_TODO),
    "tensorflow.contrib.timeseries.NumpyReader": (_TIMESERIES, _TIMESERIES_TODO),
    "tensorflow.contrib.timeseries.CSVReader": (_TIMESERIES, _TIMESERIES_TODO),
    "tensorflow.contrib.slim.parallel_reader.ParallelReader": (
        "several readers fill a common queue", _SLIM_PROVIDER),
    "tensorflow.contrib.learn.read_batch_examples": (_LEARN_READ, _LEARN_EXAMPLES),
    "tensorflow.contrib.learn.read_keyed_batch_examples": (_LEARN_READ, _LEARN_EXAMPLES),
    "tensorflow.contrib.learn.read_keyed_batch_examples_shared_queue": (_LEARN_READ, _LEARN_EXAMPLES),
    "tensorflow.contrib.learn.read_batch_features": (_LEARN_READ, _LEARN_FEATURES),
    "tensorflow.contrib.learn.read_batch_record_features": (_LEARN_READ, _LEARN_FEATURES),
    "tensorflow.contrib.learn.read_keyed_batch_features": (_LEARN_READ, _LEARN_FEATURES),
    "tensorflow.contrib.learn.read_keyed_batch_features_shared_queue": (_LEARN_READ, _LEARN_FEATURES),
    "tensorflow.contrib.learn.queue_parsed_features": (
        "it puts parsed features through a queue of its own, filled by queue runners",
        "map the parsing over the dataset of the records and prefetch, instead of queueing the parsed tensors"),
}


def short_name(name: Optional[str]) -> str:
    """`tensorflow.train.batch_join` as users write it: `tf.train.batch_join`."""
    return "tf." + name[len("tensorflow."):] if name and name.startswith("tensorflow.") else str(name)


class QueueApiNotMigrated(Rule):
    """A queue-based TensorFlow API that qmigrate reports, with its reason, but does not rewrite.

    ## Why
    Queue pipelines raise at run time under TF 2 and are deprecated since 1.x; each one left
    behind is a migration still to do. The message names the API, why it is not rewritten, and
    the tf.data construction that replaces it.

    ## Fix safety
    Manual: shown, never applied.

    ## Limitations
    Everything: migrate these by hand with the tf.data equivalent named in the message.
    """

    code = "QM001"
    safety = Safety.MANUAL
    names = tuple(NOT_MIGRATED)
    message = "queue-based input API is not migrated automatically"
    advice = "rewrite it with tf.data by hand"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def buckets(files, batch_size):
                queue = tf.train.string_input_producer(files)
                _, line = tf.TextLineReader().read(queue)
                words = tf.string_split([line]).values
                _, (batch,) = tf.contrib.training.bucket(
                    [words], tf.minimum(tf.size(words) // 10, 2), batch_size, 3, dynamic_pad=True)
                return batch
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import input as tf_input

            def twice(values):
                return tf_input.limit_epochs(tf.constant(values), num_epochs=2)
            """),
        ),
    )

    @classmethod
    def message_for(cls, name: Optional[str]) -> str:
        return "%s is a queue-based input API that is not migrated automatically" % short_name(name)

    @classmethod
    def reason_for(cls, name: Optional[str]) -> Optional[str]:
        return NOT_MIGRATED[name][0] if name in NOT_MIGRATED else None

    @classmethod
    def advice_for(cls, name: Optional[str]) -> str:
        return NOT_MIGRATED[name][1] if name in NOT_MIGRATED else cls.advice


class NonInputQueue(Rule):
    """A hand-built queue whose elements only go back to Python: not an input pipeline, left alone.

    ## Why
    Queues also serve as work lists between threads, hand-offs between RL actors and learners,
    and synchronisation tokens between workers. When every dequeue of a queue is fetched by
    `session.run` (its elements leave the graph), nothing reads it as model input, and tf.data
    would not replace it.

    ## Fix safety
    A note: nothing to change, never fails a check.

    ## Limitations
    A queue whose dequeue feeds graph ops is taken as input and reported by QM001. A queue filled
    by its runner with the rows of in-memory arrays carries data whoever reads it: it is migrated
    (QM307, qmigrate/array_queues.py), even when Python fetches every dequeue.
    """

    code = "QM003"
    safety = Safety.MANUAL
    note = True
    message = "this queue is not an input pipeline (every dequeue is fetched by session.run); left as it is"
    advice = "nothing to migrate"
    examples = (
        Example(
            before=example_source("""
            import threading

            import tensorflow as tf

            def run_workers(sess, jobs, work):
                todo = tf.FIFOQueue(100, tf.string, shapes=[])
                job = tf.placeholder(tf.string)
                add = todo.enqueue(job)
                take = todo.dequeue()
                for item in jobs:
                    sess.run(add, feed_dict={job: item})

                def worker():
                    while True:
                        work(sess.run(take))
                for _ in range(4):
                    threading.Thread(target=worker, daemon=True).start()
            """),
        ),
    )


class NotebookNotMigrated(Rule):
    """A Jupyter notebook with queue-based input code that qmigrate cannot write back: reported.

    ## Why
    A notebook is migrated through its code cells, joined in order into one module (IPython's
    `%magic` and `!shell` lines kept aside), as a script that runs its cells once, top to bottom;
    its findings point at the lines of the .ipynb file. Only the cells whose code changes are
    written back; outputs, execution counts and metadata stay. That needs a notebook whose JSON
    qmigrate can write back byte for byte as it was (the layout Jupyter writes), code cells that
    parse as Python 3, and a migration that keeps every cell's code in its cell (code moved across
    a cell boundary would leave a cell that cannot run on its own). A notebook that misses one of
    these is reported instead, with the reason.

    ## Fix safety
    Manual: shown, never applied.

    ## Limitations
    Open and save the notebook in Jupyter (for its layout), or convert it with
    `jupyter nbconvert --to script`, migrate the script, and copy the cells back. A notebook is
    looked at only when its code cells call a queue API (or cannot be read or parsed); one of
    tf.data code only is not.
    """

    code = "QM002"
    safety = Safety.MANUAL
    message = "notebook holds queue-based input code that qmigrate does not migrate"
    advice = ("open and save it in Jupyter, or convert it with `jupyter nbconvert --to script`, migrate the script, "
              "copy the cells back")
    examples = (
        Example(
            # Laid out by hand (a space after `{`), not as Jupyter writes it.
            before=('{ "cells": [{"cell_type": "code", "source": ["import tensorflow as tf\\n", '
                    '"q = tf.train.string_input_producer(files)"]}]}\n'),
            filename="example.ipynb",
        ),
    )


class QueueClassNamed(Rule):
    """A reader or queue class named but not called: no queue is made where it is named.

    ## Why
    qmigrate follows the queue objects that calls of queue APIs make. A class handed around
    (`READERS = {'tfrecord': tf.TFRecordReader}`), or named in a type check
    (`isinstance(buffer.queue, tf.RandomShuffleQueue)`), makes nothing where it is named; the
    file still holds a queue API's name, so it is said why that name stays.

    ## Fix safety
    A note: nothing is rewritten. A reader or queue that code makes from the class elsewhere
    (`reader_class()`) is queue code qmigrate does not see; a type check of an object that became
    a dataset fails once that object is migrated.

    ## Limitations
    A class handed to a slim Dataset as `reader=` has its own note (QM110); a class subclassed
    is reported by its rule (QM307 for queues, the reader's for readers), as queue code of the
    module's own.
    """

    code = "QM004"
    safety = Safety.MANUAL
    note = True
    message = "a reader or queue class is named here, not called: qmigrate follows what queue API calls make"
    advice = ("nothing to change for a name or a type check; a reader or queue made from it elsewhere "
              "(`reader_class()`) is queue code qmigrate does not see: migrate that code by hand, and update "
              "a type check of an object that became a dataset")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def check_buffer(buffer):
                assert isinstance(buffer.queue, (tf.FIFOQueue, tf.RandomShuffleQueue))
            """),
        ),
    )

