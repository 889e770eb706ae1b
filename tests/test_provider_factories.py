"""Provider factories (provider_factories.py): a method that returns a slim DatasetDataProvider to
callers in other modules, which get() its items and batch them.

The golden towers/provider_factory holds a migrated pair: drained here under TensorFlow 1.8
before and after (the same examples, batch shapes and static shapes). Where qmigrate does not
rewrite the pair, both sides say exactly why, and nothing changes (checked without TensorFlow).
"""
import json
import os
import textwrap
from collections import Counter

import pytest

from conftest import TESTDATA
from qmigrate import api
from qmigrate.diagnostics import Status
from test_golden import assemble_program, migrate_tree
from tfenv import finish, load_json, run_tf, start_tf, tf_python

SCENARIO = os.path.join(TESTDATA, "towers", "provider_factory", "before")
EVAL = 3 * 10  # make_slim_data.py: three eval files of ten examples


@pytest.fixture(scope="module")
def slim_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slimdata")
    run_tf(tf_python("1.8"), "make_slim_data.py", folder)
    return str(folder)


@pytest.mark.parametrize("function,kwargs,epochs,exact", [
    ("evaluation_batches", dict(batch_size=8), 1, True),
    ("training_batches", dict(batch_size=8, epochs=2), 2, False),
    ("label_bucketed_batches", dict(batch_size=4), 1, False),
], ids=["eval", "train", "bucketed"])
def test_a_factory_and_its_callers_drain_the_same_under_tf18(function, kwargs, epochs, exact, slim_data, tmp_path):
    python = tf_python("1.8")
    before = assemble_program(SCENARIO, str(tmp_path / "before"))
    after = str(tmp_path / "after")
    migrate_tree(SCENARIO, after)
    with open(os.path.join(after, "example_inputs.py")) as handle:
        assert "make_data_provider_records()" in handle.read()
    files = sorted(os.path.join(slim_data, name) for name in os.listdir(slim_data) if name.startswith("eval-"))
    args = json.dumps(dict(kwargs, files=files))
    runs = {}
    for label, folder in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "run_pipeline.py", os.path.join(folder, "example_inputs.py"), function, args,
                                10000, out, env={"PYTHONPATH": folder}), out)
    for process, _ in runs.values():
        finish(process)
    old, new = (load_json(runs[label][1]) for label in ("before", "after"))
    assert new["kind"] == old["kind"]
    assert new["static_shapes"] == old["static_shapes"]
    assert len(new["examples"]) == len(old["examples"]) == epochs * EVAL
    assert Counter(new["examples"]) == Counter(old["examples"])
    assert set(Counter(new["examples"]).values()) == {epochs}  # every example once an epoch
    if exact:  # one pass in file order, its last batch smaller: the same batches in the same order
        assert new["batch_shapes"] == old["batch_shapes"]
        assert new["examples"] == old["examples"]

PIPELINES = '''
import tensorflow as tf

from data import own_provider

slim = tf.contrib.slim


class Pipeline(object):
    def __init__(self, files, shuffle=True):
        self.files = files
        self.shuffle = shuffle

    def make_data_provider(self, **kwargs):
        raise NotImplementedError()


class RecordPipeline(Pipeline):
    def make_data_provider(self, **kwargs):
        decoder = slim.tfexample_decoder.TFExampleDecoder(
            {'tokens': tf.VarLenFeature(tf.int64)},
            {'tokens': slim.tfexample_decoder.ItemHandlerCallback(['tokens'], lambda d: d['tokens'])})
        dataset = slim.dataset.Dataset(data_sources=self.files, reader=tf.TFRecordReader, decoder=decoder,
                                       num_samples=None, items_to_descriptions={})
        return slim.dataset_data_provider.DatasetDataProvider(dataset=dataset, shuffle=self.shuffle, **kwargs)


class TextPipeline(Pipeline):
    def make_data_provider(self, **kwargs):
        return own_provider.LineProvider(self.files, **kwargs)
'''

OWN_PROVIDER = '''
import tensorflow as tf
from tensorflow.contrib.slim.python.slim.data import data_provider


class LineProvider(data_provider.DataProvider):
    def __init__(self, files, shuffle=True):
        queue = tf.train.string_input_producer(files, shuffle=shuffle)
        _, line = tf.TextLineReader().read(queue)
        super(LineProvider, self).__init__(items_to_tensors={'tokens': line}, num_samples=None)
'''

TRAIN = '''
import tensorflow as tf

from data import pipelines


def input_fn(pipeline, batch_size):
    provider = pipeline.make_data_provider()
    [tokens] = provider.get(['tokens'])
    return tf.train.batch([tokens], batch_size=batch_size, dynamic_pad=True)


def train_input(files, batch_size):
    return input_fn(pipelines.RecordPipeline(files), batch_size)
'''


def _write(folder, files):
    for name, text in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(textwrap.dedent(text).lstrip())


def test_a_returned_provider_and_its_callers_batch_say_why_they_stay(tmp_path):
    _write(str(tmp_path), {"data/__init__.py": "", "data/pipelines.py": PIPELINES,
                           "data/own_provider.py": OWN_PROVIDER, "train.py": TRAIN})
    results = {os.path.relpath(r.path, str(tmp_path)): r for r in api.migrate([str(tmp_path)])}
    assert results["data/pipelines.py"].new_source is None and results["train.py"].new_source is None
    [provider] = [d for d in results["data/pipelines.py"].diagnostics if d.code == "QM106"]
    assert ("the provider is returned by RecordPipeline.make_data_provider() to its callers, which read it there: "
            "a provider factory, which qmigrate does not migrate: its TFExampleDecoder (line 19) has the item handler "
            "`slim.tfexample_decoder.ItemHandlerCallback`" in provider.message)  # the dataset proof's own reason
    assert "kwargs" not in provider.message  # the method's own, passed on: the run's calls decide
    [batch] = [d for d in results["train.py"].diagnostics if d.code == "QM301"]
    assert results["train.py"].status is Status.DIAGNOSED
    assert ("the tensors it batches come from pipeline.make_data_provider() (line 7), a provider factory: 2 classes "
            "of the run return a provider from make_data_provider(): RecordPipeline (data/pipelines.py:24: a slim "
            "DatasetDataProvider, see QM106 there); TextPipeline (data/pipelines.py:29: "
            "`own_provider.LineProvider(...)`, a provider class of the program's own, whose reading qmigrate does "
            "not follow); which of them `pipeline` is, qmigrate does not prove; qmigrate migrates a provider factory "
            "with a caller that makes the object from the factory's class" in batch.message)


def test_a_batch_from_a_method_of_no_provider_class_keeps_its_reason(tmp_path):
    _write(str(tmp_path), {"data/__init__.py": "", "data/pipelines.py": "class Pipeline(object):\n    pass\n",
                           "train.py": TRAIN})
    result = next(r for r in api.migrate([str(tmp_path)]) if r.path.endswith("train.py"))
    [batch] = [d for d in result.diagnostics if d.code == "QM301"]
    assert "a call qmigrate does not follow to a producer → reader chain" in batch.message
    assert "provider factory" not in batch.message


def test_a_factory_is_taken_only_where_its_object_is_made_from_the_proven_class(tmp_path):
    """Two functions of one name call the factory: one on an object it makes from the class, the
    other on a parameter (any class): only the first reads the factory's records."""
    with open(os.path.join(SCENARIO, "example_pipelines.py")) as handle:
        pipelines = handle.read()
    caller = textwrap.dedent('''
        import tensorflow as tf

        import example_pipelines


        def made_here(files, batch_size):
            def batches():
                pipeline = example_pipelines.RecordPipeline({'files': files, 'num_epochs': 1})
                provider = pipeline.make_data_provider()
                [image, label] = provider.get(['image', 'label'])
                return tf.train.batch([image, label], batch_size=batch_size)
            return batches()


        def given(pipeline, batch_size):
            def batches():
                provider = pipeline.make_data_provider()
                [image, label] = provider.get(['image', 'label'])
                return tf.train.batch([image, label], batch_size=batch_size)
            return batches()
        ''').lstrip()
    _write(str(tmp_path), {"example_pipelines.py": pipelines, "example_inputs.py": caller})
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    inputs = results["example_inputs.py"]
    assert inputs.new_source.count(b"make_data_provider_records()") == 1
    assert inputs.new_source.count(b"pipeline.make_data_provider()") == 1  # given()'s stays
    assert [d.line for d in inputs.diagnostics if d.code == "QM301" and not d.fixed] == [19]
    assert b"def make_data_provider_records(self):" in results["example_pipelines.py"].new_source
