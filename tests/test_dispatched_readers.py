"""Reader methods chosen at run time (dispatched_readers.py): `reader.prepare_reader(queue)` on an
object of any of several classes of the run. The golden towers/dispatched_readers holds a program
migrated that way; here, that it reads the same examples under TF 1.8, and what stays."""
import os
import subprocess
import textwrap

import pytest

from conftest import TESTDATA
from qmigrate import api
from test_golden import assemble_program, migrate_tree
from tfenv import dict_records, tf_python

SCENARIO = os.path.join(TESTDATA, "towers", "dispatched_readers", "before")


def _run(python, folder, script, *args):
    done = subprocess.run([python, os.path.join(folder, script)] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()[-1]


@pytest.mark.parametrize("kind", ["ChunkedReader", "SingleReader"])
def test_the_golden_program_reads_the_same_examples_under_tf18(tmp_path, kind):
    # Training: two readers, two epochs, shuffled: every id twice. Evaluation: one reader, one
    # epoch in file order: the ids in order and the features' sum (scaled by the class). Preview:
    # the method called once, its records batched with tf.train.batch: the first 15 ids in order.
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    before, after = str(tmp_path / "before"), str(tmp_path / "after")
    assemble_program(SCENARIO, before)
    migrate_tree(SCENARIO, after)
    for name in ("train.py", "evaluate.py", "preview.py", "readers.py"):
        with open(os.path.join(after, name)) as handle:
            text = handle.read()
        assert "queue_runners" not in text and "TFRecordReader" not in text, name
    seen = {}
    for label, folder in (("before", before), ("after", after)):
        seen[label] = tuple(_run(python, folder, script, kind, *files)
                            for script in ("train.py", "evaluate.py", "preview.py"))
    assert seen["after"] == seen["before"]
    assert seen["after"][0] == str(sorted(list(range(50)) * 2))
    assert seen["after"][1] == "(%s, %s)" % (list(range(50)), 2.0 * sum(range(50)))
    assert seen["after"][2] == str(list(range(15)))


def _write(tmp_path, modules):
    for name, text in modules.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}


READERS = """\
    import tensorflow as tf

    class Base(object):
        def prepare_reader(self, unused_filename_queue):
            raise NotImplementedError()

    class Records(Base):
        def prepare_reader(self, filename_queue):
            reader = tf.TFRecordReader()
            _, value = reader.read(filename_queue)
            %s
            return (tf.expand_dims(value, 0),)
    """
CALLER = """\
    import tensorflow as tf

    def inputs(reader, files):
        queue = tf.train.string_input_producer(files, num_epochs=1)
        data = [reader.prepare_reader(queue) for _ in range(2)]
        return tf.train.batch_join(data, batch_size=4, enqueue_many=True)
    """


def test_the_family_migrates_with_its_caller(tmp_path):
    results = _write(tmp_path, {"readers.py": READERS % "pass", "train.py": CALLER})
    assert not results["readers.py"].remaining and not results["train.py"].remaining
    assert b"def prepare_reader_records(self, filename):" in results["readers.py"].new_source
    assert b"interleave(reader.prepare_reader_records, cycle_length=2)" in results["train.py"].new_source


@pytest.mark.parametrize("extra, other, why", [
    # a Python 2 file that hands it a queue
    ("pass", {"old.py": "def run(reader, q):\n    print reader.prepare_reader(q)\n"},
     "old.py:2, which qmigrate cannot parse, names `.prepare_reader`"),
    # the method named otherwise than in a call of it
    ("pass", {"hooks.py": "def hook(reader):\n    return reader.prepare_reader\n"},
     "`.prepare_reader` at hooks.py:2 is not a call"),
    # a caller whose pipeline stays (its records are not batched)
    ("pass", {"peek.py": "import tensorflow as tf\n\ndef peek(reader, files):\n"
                         "    queue = tf.train.string_input_producer(files)\n"
                         "    return reader.prepare_reader(queue)\n"},
     "its call at peek.py:5 stays"),
    # per-record code a map function cannot hold: a collection the run reads, a summary
    ("tf.add_to_collection('raw', value)", {"show.py": "import tensorflow as tf\nRAW = tf.get_collection('raw')\n"},
     "Records.prepare_reader() at readers.py:8 has per-record code that a map function cannot hold "
     "(it calls tf.add_to_collection()"),
    ("tf.summary.scalar('n', tf.size(value))", {}, "(it calls tf.summary.scalar()"),
])
def test_what_is_not_proven_stays(tmp_path, extra, other, why):
    results = _write(tmp_path, dict({"readers.py": READERS % extra, "train.py": CALLER}, **other))
    assert not results["readers.py"].changed
    assert [d.code for d in results["readers.py"].remaining] == ["QM201"]
    assert not results["train.py"].changed
    # Both the classes and the caller say why (family_reasons), from where they are.
    told = "are migrated together with every call of it, or not at all, and not here: "
    caller = next(d.message for d in results["train.py"].remaining if d.code == "QM303")
    assert "a reader method of classes chosen at run time: the classes of the run that define prepare_reader() " \
           + told in caller and why in caller
    producer = next(d.message for d in results["train.py"].remaining if d.code == "QM101")
    assert "not rewritten: it feeds reader.prepare_reader() (line 5), a reader method of classes chosen at run " \
           "time: " in producer and why in producer
    here = why.replace("readers.py:8", "line 8")
    assert told in results["readers.py"].remaining[0].message and here in results["readers.py"].remaining[0].message


def test_a_collection_nothing_reads_is_no_bar(tmp_path):
    results = _write(tmp_path, {"readers.py": READERS % "tf.add_to_collection('raw', value)", "train.py": CALLER})
    assert results["readers.py"].changed and not results["readers.py"].remaining


def test_a_constructor_that_makes_tensors_keeps_the_family(tmp_path):
    # What __init__ keeps may be a tensor or variable of the program's graph, which the map
    # function of a one-shot iterator cannot capture.
    readers = READERS.replace("    class Records(Base):\n",
                              "    class Records(Base):\n        def __init__(self):\n"
                              "            self.mean = tf.Variable(0.0)\n\n")
    results = _write(tmp_path, {"readers.py": readers % "value = value", "train.py": CALLER})
    assert not results["readers.py"].changed and not results["train.py"].changed
    assert "not here: Records.prepare_reader() at readers.py:11 belongs to a class whose constructor calls " \
           "TensorFlow" in results["train.py"].remaining[0].message


def test_tensorflow_under_another_name_is_still_seen(tmp_path):
    readers = textwrap.dedent(READERS % "flow.summary.scalar('n', tf.size(value))").replace(
        "import tensorflow as tf\n", "import tensorflow as tf\nimport tensorflow as flow\n")
    results = _write(tmp_path, {"readers.py": readers, "train.py": CALLER})
    assert not results["readers.py"].changed


@pytest.mark.parametrize("bound, migrates", [
    ("out = {'v': tf.expand_dims(value, 0)}\n    out['n'] = tf.size(value)", True),   # a dict may gain keys
    ("out = (tf.expand_dims(value, 0),)", True),                                      # a tuple cannot change
    ("out = [tf.expand_dims(value, 0)]\n    out.append(value)", False),               # a list may grow
])
def test_a_literal_returned_through_a_name(tmp_path, bound, migrates):
    readers = textwrap.dedent(READERS % "pass").replace(
        "        return (tf.expand_dims(value, 0),)\n",
        "        %s\n        return out\n" % bound.replace("\n    ", "\n        "))
    results = _write(tmp_path, {"readers.py": readers, "train.py": CALLER})
    assert results["readers.py"].changed is migrates and results["train.py"].changed is migrates
    if not migrates:
        assert "not here: Records.prepare_reader() at line 8 does not return a literal tuple, list or dict" \
               in results["readers.py"].remaining[0].message


def test_classes_returning_different_structures_say_which(tmp_path):
    readers = textwrap.dedent(READERS % "pass") + textwrap.dedent("""
        class Named(Base):
            def prepare_reader(self, filename_queue):
                reader = tf.TFRecordReader()
                _, value = reader.read(filename_queue)
                return {"value": tf.expand_dims(value, 0)}
        """)
    results = _write(tmp_path, {"readers.py": readers, "train.py": CALLER})
    assert not results["readers.py"].changed and not results["train.py"].changed
    assert "not here: the classes return records of different structures: Records.prepare_reader() a tuple of " \
           "one tensor, Named.prepare_reader() at readers.py:15 a dict" in results["train.py"].remaining[0].message


def test_a_readers_module_that_starts_runners_itself_keeps_its_classes_migrated(tmp_path):
    # The module's own runner start goes once no queue is left; its classes are written after
    # that is settled, so they are migrated in what is written.
    readers = textwrap.dedent(READERS % "pass") + textwrap.dedent("""\

        def show(files):
            with tf.Session() as sess:
                tf.train.start_queue_runners(sess=sess)
                return sess.run(tf.constant(files))
        """)
    results = _write(tmp_path, {"readers.py": readers, "train.py": CALLER})
    new = results["readers.py"].new_source.decode()
    assert "def prepare_reader_records(self, filename):" in new and "start_queue_runners" not in new
    assert not results["readers.py"].remaining and results["train.py"].changed


# Reader makers chosen at run time (dispatched_readers.maker_families): Inception's
# `reader = dataset.reader()` on a parameter, every class of the run making one reader class.
SETS = """\
    import tensorflow as tf


    class RecordSet(object):
        def __init__(self, files):
            self.files = files

        def data_files(self):
            return self.files

        def reader(self):
            \"\"\"A reader of one of its files.\"\"\"
            return tf.TFRecordReader()


    class TrainSet(RecordSet):
        pass
    """
INPUTS = """\
    import tensorflow as tf


    def batch_inputs(dataset, batch_size=4):
        filename_queue = tf.train.string_input_producer(dataset.data_files(), num_epochs=1, shuffle=False)
        reader = dataset.reader()
        _, value = reader.read(filename_queue)
        parsed = tf.parse_single_example(value, {'id': tf.FixedLenFeature([], tf.int64),
                                                 'x': tf.FixedLenFeature([3], tf.float32)})
        return tf.train.batch([parsed['id'], parsed['x']], batch_size, allow_smaller_final_batch=True)
    """
READ_ALL = """\
    import sys

    import tensorflow as tf

    import inputs
    import sets


    def main(files):
        ids, _ = inputs.batch_inputs(sets.TrainSet(files))
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            seen = []
            try:
                while True:
                    seen.extend(sess.run(ids).tolist())
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
        print(seen)


    if __name__ == '__main__':
        main(sys.argv[1:])
    """


def test_a_reader_maker_on_a_parameter_reads_the_same_examples_under_tf18(tmp_path):
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    seen = {}
    for label in ("before", "after"):
        folder = tmp_path / label
        folder.mkdir()
        for name, text in (("sets.py", SETS), ("inputs.py", INPUTS), ("read_all.py", READ_ALL)):
            (folder / name).write_text(textwrap.dedent(text))
        if label == "after":
            results = {os.path.basename(r.path): r for r in api.migrate([str(folder)], write=True)}
            assert not results["inputs.py"].remaining and not results["read_all.py"].remaining
            assert not results["sets.py"].changed  # the maker stays, for whoever calls it
            assert "TFRecordDataset" in (folder / "inputs.py").read_text()
        seen[label] = _run(python, str(folder), "read_all.py", *files)
    assert seen["after"] == seen["before"] == str(list(range(50)))


@pytest.mark.parametrize("other", [
    # a slim Dataset's `reader` is a reader class: `dataset.reader()` may be any
    {"slim_sets.py": "import tensorflow as tf\nslim = tf.contrib.slim\n"
                     "SPLIT = slim.dataset.Dataset(data_sources=[], reader=tf.TextLineReader, decoder=None,\n"
                     "                             num_samples=1, items_to_descriptions={})\n"},
    # a class that makes another reader
    {"text_sets.py": "import tensorflow as tf\n\nclass TextSet(object):\n"
                     "    def reader(self):\n        return tf.TextLineReader()\n"},
    # the method named otherwise than called with nothing
    {"peek.py": "def peek(dataset):\n    return dataset.reader\n"},
])
def test_what_no_maker_family_proves_stays(tmp_path, other):
    modules = {"sets.py": SETS, "inputs.py": INPUTS}
    modules.update(other)
    results = _write(tmp_path, modules)
    assert not results["inputs.py"].changed
