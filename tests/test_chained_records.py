"""Records returned through functions of several modules into a hand-built queue
(qmigrate/chained_records.py).

The golden program is testdata/towers/chained_records (checked by test_golden): train.py shuffles
and batches with a RandomShuffleQueue what data/factory.py's get_examples() returns, which takes
it from data/records.py's read() (whose producer and reader the engine turns into a dataset).
Here: every function of the chain changes with its callers or none does, a function other code
calls keeps its result for it, and the migrated program gives the same examples and trains the
same number of steps as the legacy one under TensorFlow 1.8.
"""
import glob
import os
import shutil

from conftest import TESTDATA
from qmigrate import api
from qmigrate.diagnostics import Status
from test_golden import migrate_tree
from test_handed_down import assert_same_batches, data_dir, drain, script_steps  # noqa: F401 (a fixture)
from tfenv import tf_python

BEFORE = os.path.join(TESTDATA, "towers", "chained_records", "before")
ENTRY = "from train import inputs\n"


def _program(tmp_path, edits=None):
    """A copy of the golden's before/ program, with `edits`: {file: [(old, new)]} or {file: text}."""
    out = str(tmp_path / "program")
    shutil.copytree(BEFORE, out)
    for name, change in (edits or {}).items():
        path = os.path.join(out, name)
        if isinstance(change, str):
            text = change
        else:
            with open(path) as handle:
                text = handle.read()
            for old, new in change:
                assert old in text, old
                text = text.replace(old, new)
        with open(path, "w") as handle:
            handle.write(text)
    return out


def _by_name(results, root):
    return {os.path.relpath(r.path, root): r for r in results}


FACTORY = os.path.join("data", "factory.py")
RECORDS = os.path.join("data", "records.py")


def test_the_chain_and_its_queue_migrate_together(tmp_path):
    root = _program(tmp_path)
    results = _by_name(api.migrate([root]), root)
    for name in ("train.py", FACTORY, "inspect_records.py"):
        assert results[name].status is Status.MIGRATED, (name, results[name].diagnostics)
    assert results[RECORDS].changed and not results[RECORDS].remaining  # a note (QM110) is left
    factory = results[FACTORY].new_source.decode()
    assert "dataset = records.read_dataset(files)" in factory and "return dataset.map(prepare_record)" in factory
    records = results[RECORDS].new_source.decode()
    # read() keeps its result for inspect_records.py, which calls it as it was
    assert "def read(files, num_epochs=2):\n    return read_dataset(files, num_epochs).make_one_shot_iterator()" \
        ".get_next()\n" in records


def test_a_function_only_the_chain_calls_changes_in_place(tmp_path):
    root = _program(tmp_path)
    os.remove(os.path.join(root, "inspect_records.py"))
    results = _by_name(api.migrate([root]), root)
    records = results[RECORDS].new_source.decode()
    assert "def read(files, num_epochs=2):\n" in records and "read_dataset" not in records
    assert "dataset = records.read(files)" in results[FACTORY].new_source.decode()
    assert results["train.py"].status is Status.MIGRATED


def test_a_single_record_dequeue_takes_the_records_one_at_a_time(tmp_path):
    """The shape of a queue dequeued with dequeue(): shuffled records, no batch."""
    root = _program(tmp_path, {"train.py": [
        ("x, example_id = queue.dequeue_many(batch_size)", "x, example_id = queue.dequeue()"),
        (", shapes=([3], [])", "")]})
    results = _by_name(api.migrate([root]), root)
    train = results["train.py"]
    assert train.status is Status.MIGRATED, train.diagnostics
    text = train.new_source.decode()
    assert "dataset = dataset.shuffle(20)\n    dataset = dataset.prefetch(1)\n" \
           "    x, example_id = dataset.make_one_shot_iterator().get_next()\n" in text


def _unchanged_chain(results, why):
    assert not results[FACTORY].changed
    records = results[RECORDS].new_source.decode()
    assert "read_dataset" not in records  # the engine's own rewrite of read(), as without the chain
    assert not any("hand-built queue at" in d.message for d in results[RECORDS].diagnostics)
    train = results["train.py"]
    assert not train.changed
    queue = [d for d in train.diagnostics if d.code == "QM307" and d.line == 11]
    assert len(queue) == 1 and not queue[0].fixed
    assert "comes from `datasets.get_examples()`, a chain of functions of other modules" in queue[0].message
    assert why in queue[0].message, queue[0].message


def test_records_used_beside_the_queue_leave_every_module_as_it_was(tmp_path):
    """A dataset cannot give the records both to the queue and to other code."""
    root = _program(tmp_path, {"train.py": [
        ("    enqueue_op = queue.enqueue((x, example_id))\n",
         "    enqueue_op = queue.enqueue((x, example_id))\n    tf.summary.histogram('x', x)\n")]})
    _unchanged_chain(_by_name(api.migrate([root]), root), "the records of datasets.get_examples() are used beside "
                     "the queue")


def test_per_record_code_that_is_not_an_assignment_leaves_every_module_as_it_was(tmp_path):
    """A link whose per-record work cannot go into a map function: nothing of the chain changes."""
    root = _program(tmp_path, {FACTORY: [
        ("    x = x * 2.0\n", "    with tf.device('/cpu:0'):\n        x = x * 2.0\n")]})
    _unchanged_chain(_by_name(api.migrate([root]), root), "the per-record code of get_examples() holds a statement "
                     "other than an assignment (line of `with tf.device('/cpu:0'):`)")


def test_an_if_testing_a_record_in_the_per_record_code_is_not_followed(tmp_path):
    """A Python `if` on a tensor is an error in graph code; qmigrate does not carry it anywhere."""
    root = _program(tmp_path, {FACTORY: [
        ("    x = x * 2.0\n", "    if example_id is not None:\n        x = x * 2.0\n")]})
    _unchanged_chain(_by_name(api.migrate([root]), root), "holds an `if` whose test reads a record")


def test_a_chain_function_that_returns_more_than_records_is_not_followed(tmp_path):
    """A value made once, outside the per-record code, would become part of every element."""
    root = _program(tmp_path, {FACTORY: [("    return x, example_id\n",
                                          "    return x, tf.zeros([], tf.int64)\n")]})
    _unchanged_chain(_by_name(api.migrate([root]), root), "get_examples() returns something else than its "
                     "per-record tensors")


def test_tf1_8_same_examples_before_and_after(data_dir, tmp_path):  # noqa: F811
    python = tf_python("1.8")
    before = _program(tmp_path)
    after = str(tmp_path / "after")
    migrate_tree(BEFORE, after)
    old, new = (drain(python, root, "inputs", dict(data_dir=data_dir, batch_size=10), tmp_path, label, ENTRY)
                for root, label in ((before, "before"), (after, "after")))
    assert_same_batches(old, new, 100)  # 2 epochs of 50 examples
    steps = [script_steps(python, root, ["train.py", data_dir]) for root in (before, after)]
    assert steps == [10, 10]


def test_per_record_code_reading_a_random_tensor_of_its_function_is_not_followed(tmp_path):
    """A one-shot iterator's map function cannot capture a stateful op made outside it."""
    root = _program(tmp_path, {FACTORY: [
        ("    x, example_id = records.read(files)\n",
         "    noise = tf.random_uniform([3])\n    x, example_id = records.read(files)\n"),
        ("    x = x * 2.0\n", "    x = x * 2.0 + noise\n")]})
    _unchanged_chain(_by_name(api.migrate([root]), root), "the per-record code of get_examples() reads `noise`, made "
                     "by `tf.random_uniform([3])`, which a one-shot iterator's map function cannot capture")


def test_a_reader_class_of_a_function_no_code_calls_is_a_note(tmp_path):
    """records.get_split() hands a reader class to a slim Dataset, and nothing calls it: no program
    of the run reads through the class, so the train script's queue runners go."""
    root = _program(tmp_path)
    results = _by_name(api.migrate([root]), root)
    [note] = [d for d in results[RECORDS].diagnostics if d.code == "QM110"]
    assert note.note and "get_split(), which makes the Dataset, is called by no code of the run" in note.message
    assert not [d for d in results[RECORDS].diagnostics if d.code == "QM201" and not d.fixed]
    assert all(d.fixed for d in results["train.py"].diagnostics)


def test_a_reader_class_of_a_function_another_module_names_keeps_the_queue_runners(tmp_path):
    """A module of the train script's program that calls get_split() may read the Dataset through a
    provider: the class is reported, and the train script keeps its loop."""
    root = _program(tmp_path, {FACTORY: [("\n\ndef _augment(", "\n\ndef dataset(files):\n"
                                                                "    return records.get_split(files)\n\n\ndef _augment(")]})
    results = _by_name(api.migrate([root]), root)
    [kept] = [d for d in results[RECORDS].diagnostics if d.code == "QM201" and not d.fixed]
    assert "handed over as a reader class" in kept.message
    [loop] = [d for d in results["train.py"].diagnostics if d.code == "QM505"]
    assert not loop.fixed
    assert results["train.py"].status is Status.PARTIAL  # the queue is migrated all the same


def test_a_caller_no_program_of_the_train_script_holds_keeps_no_runner_of_it(tmp_path):
    """get_split() is called only by a module the train script does not import: its queues are
    built where that module runs, not in the train script's program, whose loop goes
    (uncalled_queues)."""
    root = _program(tmp_path, {"splits.py": "from data import records\n\n\ndef dataset(files):\n"
                                            "    return records.get_split(files)\n"})
    results = _by_name(api.migrate([root]), root)
    [kept] = [d for d in results[RECORDS].diagnostics if d.code == "QM201" and not d.fixed]
    assert "handed over as a reader class" in kept.message
    [loop] = [d for d in results["train.py"].diagnostics if d.code == "QM505"]
    assert loop.fixed


def test_the_first_function_called_elsewhere_too_gets_a_twin_its_queue_calls(tmp_path):
    """get_examples() keeps its result for preview.py; train.py's queue takes get_examples_dataset()."""
    root = _program(tmp_path, {"preview.py": "import data.factory as datasets\n\n\ndef first(data_dir):\n"
                                             "    return datasets.get_examples(data_dir, 'dict')\n"})
    results = _by_name(api.migrate([root]), root)
    factory = results[FACTORY].new_source.decode()
    assert "def get_examples_dataset(data_dir, split, training=False):\n" in factory
    assert "def get_examples(data_dir, split, training=False):\n    return get_examples_dataset(data_dir, split, " \
           "training).make_one_shot_iterator().get_next()\n" in factory
    train = results["train.py"]
    assert train.status is Status.MIGRATED
    assert "dataset = datasets.get_examples_dataset(data_dir, 'dict', training=True)\n" in train.new_source.decode()
    assert not results["preview.py"].changed
