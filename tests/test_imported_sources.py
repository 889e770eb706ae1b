"""Record-source methods of a class of another module (imported_helpers, receivers.py across
modules): `decoder = records.DigitIO().reader; image, label = decoder.read_digits(path, epochs)`
then a batching call, the method making its own file queue and reader. The method takes the
record, and every caller's dataset is made from what its producer was made from, only when every
call of the method in the run is migrated with it.

The golden towers/imported_source holds the migrated program (a package module, imported as
`from digits import records` and as `import digits.records as digit_records`); here it is drained
under TensorFlow 1.8 before and after, and the shapes that must leave every module as it was are
checked without TensorFlow.
"""
import os
from collections import Counter

import pytest

from conftest import TESTDATA
from qmigrate.diagnostics import Status
from test_golden import assemble_program, migrate_tree
from test_imported_helpers import _drain, _program, mnist_dir  # noqa: F401 (a fixture)
from tfenv import finish, load_json, tf_python

SCENARIO = os.path.join(TESTDATA, "towers", "imported_source", "before")


@pytest.mark.parametrize("module,function,kwargs,exact", [
    # each file in order, one pass, its last batch smaller: the same examples in the same order
    ("preview_digits.py", "preview_batches", dict(batch_size=16), True),
    # one file of 40, two shuffled passes in batches of 16 (80 = 5 x 16, none dropped)
    ("train_digits.py", "training_batches", dict(batch_size=16, epochs=2), False),
])
def test_imported_record_source_drains_the_same_under_tf18(module, function, kwargs, exact, mnist_dir, tmp_path):
    python = tf_python("1.8")
    before = assemble_program(SCENARIO, str(tmp_path / "before"))
    after = str(tmp_path / "after")
    migrate_tree(SCENARIO, after)
    with open(os.path.join(after, "digits", "records.py")) as handle:
        assert "reader.read" not in handle.read()  # the method takes the record
    files = sorted(os.path.join(mnist_dir, name) for name in os.listdir(mnist_dir) if name.startswith("mnist_"))
    args = dict(kwargs, files=files)
    runs = {label: (_drain(python, folder, module, function, args, str(tmp_path / (label + ".json"))),
                    str(tmp_path / (label + ".json"))) for label, folder in (("before", before), ("after", after))}
    for process, _ in runs.values():
        finish(process)
    old, new = (load_json(runs[label][1]) for label in ("before", "after"))
    assert new["kind"] == old["kind"]  # the same structure: ([images...], [labels...]) or (images, labels)
    assert new["static_shapes"] == old["static_shapes"]
    assert new["batch_shapes"] == old["batch_shapes"]
    assert len(new["examples"]) == len(old["examples"]) > 0
    if exact:
        assert new["examples"] == old["examples"]
    else:  # every example of the file twice, in both: the same multiset of the two epochs
        assert Counter(new["examples"]) == Counter(old["examples"])
        assert set(Counter(new["examples"]).values()) == {2} and len(new["examples"]) == 80


RECORDS = '''\
import tensorflow as tf

EPOCHS = 2


class Reader(object):
    @staticmethod
    def read_one(path, epochs):
        queue = tf.train.string_input_producer([path], num_epochs=%s)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(queue)
        return tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']


class IO(object):
    def __init__(self):
        self._reader = Reader()

    @property
    def reader(self):
        return self._reader
'''

CALLER = '''\
import tensorflow as tf

import records


def inputs(path, batch_size):
    decoder = records.IO().reader
    x = decoder.read_one(path, 1)
    return tf.train.batch([x], batch_size=batch_size)
'''


def test_every_caller_migrated_changes_the_method(tmp_path):
    results = _program(tmp_path, {"records.py": RECORDS % "epochs", "train.py": CALLER})
    assert results["records.py"].status is Status.MIGRATED
    assert results["train.py"].status is Status.MIGRATED
    assert b"    def read_one(serialized):" in results["records.py"].new_source
    assert b"x = decoder.read_one(serialized)" in results["train.py"].new_source
    assert b"Dataset.from_tensor_slices([path])" in results["train.py"].new_source


def _unchanged_but_read_in_place(results):
    """records.py as the first pass leaves it alone (its read a dataset of its own), train.py as it was."""
    assert b"def read_one(path, epochs):" in results["records.py"].new_source
    assert not results["train.py"].changed


@pytest.mark.parametrize("other", [
    # a call that reads records without batching them: it needs the method to read
    "import records\n\n\ndef peek(path):\n    return records.IO().reader.read_one(path, 1)\n",
    # the method passed around as a value
    "import records\n\nREAD = records.Reader.read_one\n",
])
def test_a_call_left_as_it_is_keeps_every_caller(tmp_path, other):
    results = _program(tmp_path, {"records.py": RECORDS % "epochs", "train.py": CALLER, "other.py": other})
    _unchanged_but_read_in_place(results)
    assert not results["other.py"].changed
    [batch] = [d for d in results["train.py"].diagnostics if d.code == "QM301"]
    assert "Reader.read_one() of records.py is a reading method that other modules call" in batch.message
    assert "other.py" in batch.message


@pytest.mark.parametrize("caller", [
    # what the producer reads is a name of the method's module: it means nothing in the caller
    None,
    # the class imported by name: the object is not followed into the other module
    CALLER.replace("import records\n", "from records import IO\n").replace("records.IO()", "IO()"),
    # the module's name rebound in the caller: `records.IO()` may make anything
    CALLER.replace("def inputs(", "records = None\n\n\ndef inputs("),
    # the module's name bound at the top by something else, imported only inside another function
    CALLER.replace("import records\n", "records = None\n\n\ndef setup():\n    import records\n"),
    # a class of the caller's own with the same name
    CALLER + "\n\nclass Reader(object):\n    pass\n",
])
def test_what_cannot_be_proven_in_the_caller_stays(tmp_path, caller):
    records = RECORDS % ("EPOCHS" if caller is None else "epochs")
    results = _program(tmp_path, {"records.py": records, "train.py": caller or CALLER})
    assert not results["train.py"].changed
    assert results["records.py"].new_source is None or b"def read_one(path, epochs):" in results["records.py"].new_source


def test_a_property_bound_twice_is_not_followed(tmp_path):
    records = RECORDS % "epochs" + "\n    def swap(self):\n        self._reader = None\n"
    results = _program(tmp_path, {"records.py": records, "train.py": CALLER})
    _unchanged_but_read_in_place(results)
