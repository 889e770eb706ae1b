"""A pipeline written with its arguments named (`reader.read(queue=q)`,
`string_input_producer(string_tensor=...)`, `shuffle_batch(tensors=...)`,
`add_queue_runner(qr=...)`) is the same pipeline as the positional one, and a dict from
parse_single_sequence_example (`context, sequence = ...`) is batched as a dict, as tf.train.batch
gives it back. (Golden: testdata/single/keyword_sequence_reader.)"""
import glob
import json
import os
from collections import Counter

import libcst as cst
import pytest

from conftest import TESTDATA
from qmigrate import api
from qmigrate.helpers import plain_read_call
from tfenv import finish, load_json, run_tf, start_tf, tf_python

GOLDEN = os.path.join(TESTDATA, "single", "keyword_sequence_reader.before.py")

# The parameters of the queue APIs, in order (TF 1.x signatures), by the called name's last part.
SIGNATURES = {
    "read": ("queue",), "read_up_to": ("queue", "num_records"),
    "batch": ("tensors", "batch_size", "num_threads", "capacity", "enqueue_many", "shapes", "dynamic_pad",
              "allow_smaller_final_batch", "shared_name", "name"),
    "shuffle_batch": ("tensors", "batch_size", "capacity", "min_after_dequeue", "num_threads", "seed",
                      "enqueue_many", "shapes", "allow_smaller_final_batch", "shared_name", "name"),
    "batch_join": ("tensors_list", "batch_size", "capacity", "enqueue_many", "shapes", "dynamic_pad",
                   "allow_smaller_final_batch", "shared_name", "name"),
    "shuffle_batch_join": ("tensors_list", "batch_size", "capacity", "min_after_dequeue", "seed", "enqueue_many",
                           "shapes", "allow_smaller_final_batch", "shared_name", "name"),
    "string_input_producer": ("string_tensor", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name"),
    "slice_input_producer": ("tensor_list", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name"),
    "FixedLengthRecordReader": ("record_bytes", "header_bytes", "footer_bytes", "hop_bytes", "name"),
    "FIFOQueue": ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
    "RandomShuffleQueue": ("capacity", "min_after_dequeue", "dtypes", "shapes", "names", "seed", "shared_name",
                           "name"),
    "enqueue": ("vals", "name"), "enqueue_many": ("vals", "name"), "dequeue_many": ("n", "name"),
    "QueueRunner": ("queue", "enqueue_ops"), "add_queue_runner": ("qr", "collection"),
    "start_queue_runners": ("sess", "coord", "daemon", "start", "collection"),
}


class _NameEveryArgument(cst.CSTTransformer):
    """Each positional argument of a queue API call given by its keyword instead."""

    def __init__(self):
        self.named = 0

    def leave_Call(self, original, node):
        func = node.func
        called = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        params = SIGNATURES.get(called)
        if params is None or any(arg.star for arg in node.args):
            return node
        args = []
        for position, arg in enumerate(node.args):
            if arg.keyword is None and position < len(params):
                arg = arg.with_changes(keyword=cst.Name(params[position]), equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
                self.named += 1
            args.append(arg)
        return node.with_changes(args=args)


def _fully_migrated(path):
    result, = api.migrate([str(path)], jobs=1)
    return result.changed and not [d for d in result.diagnostics if not d.fixed and d.code < "QM900"]


_GOLDENS = sorted(glob.glob(os.path.join(TESTDATA, "single", "*.before.py")))


@pytest.mark.parametrize("chunk", range(4))
def test_every_golden_that_migrates_migrates_with_its_arguments_named(tmp_path, chunk):
    named = []
    for before in _GOLDENS[chunk::4]:
        if not _fully_migrated(before):
            continue
        renamer = _NameEveryArgument()
        module = cst.parse_module(open(before).read()).visit(renamer)
        if not renamer.named:
            continue
        path = tmp_path / os.path.basename(before)
        path.write_text(module.code)
        if not _fully_migrated(path):
            named.append(os.path.basename(before))
    assert not named


def _plain(code):
    return cst.Module([]).code_for_node(plain_read_call(cst.parse_expression(code)))


def test_read_calls_take_their_positional_form():
    assert _plain("reader.read(queue=q)") == "reader.read(q)"
    assert _plain("reader.read(q, name='read')") == "reader.read(q)"
    assert _plain("reader.read_up_to(num_records=n, queue=q)") == "reader.read_up_to(q, n)"
    assert _plain("reader.read_up_to(q, num_records=n, name='r')") == "reader.read_up_to(q, n)"


def test_read_calls_that_fit_no_signature_stay_as_written():
    for code in ("reader.read(queue=q, other=1)", "reader.read(q, queue=q)", "reader.read(*args)",
                 "reader.read_up_to(q, n, m)", "reader.read(**kw)", "reader.fetch(queue=q)"):
        assert _plain(code) == code, code


def _migrated(tmp_path, source):
    path = tmp_path / "inputs.py"
    path.write_text(source)
    result, = api.migrate([str(path)], jobs=1)
    return result


def test_a_sequence_parse_unpacked_otherwise_keeps_the_file(tmp_path):
    """Only `context, sequence = parse_single_sequence_example(...)` is known to give dicts: a
    starred target, or the pair kept whole, may be anything to tf.train.batch."""
    source = open(GOLDEN).read()
    for old, new in (("contexts, features = tf.parse_single_sequence_example(",
                      "features = tf.parse_single_sequence_example("),
                     ("contexts, features = tf.parse_single_sequence_example(",
                      "contexts, *features = tf.parse_single_sequence_example(")):
        assert old in source
        result = _migrated(tmp_path, source.replace(old, new))
        assert not result.changed, new
        assert any("QM302" == d.code and not d.fixed for d in result.diagnostics), new


def test_tf1_8_the_same_examples_each_epoch(tmp_path):
    """Eval (one epoch): the 40 SequenceExamples once each, before and after, then the end; train:
    three epochs of the migrated input, each the 40 once, the examples the queue gave."""
    python = tf_python("1.8")
    data = tmp_path / "data"
    data.mkdir()
    run_tf(python, "make_data.py", str(data))
    files = sorted(glob.glob(str(data / "sequence_*.tfrecords")))
    assert len(files) == 2
    after = tmp_path / "after.py"
    result, = api.migrate([GOLDEN], jobs=1)
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    after.write_bytes(result.new_source)
    runs = {}
    for label, path in (("before", GOLDEN), ("after", str(after))):
        for mode, batches in (("eval", 10), ("train", 15)):
            out = str(tmp_path / ("%s_%s.json" % (label, mode)))
            args = json.dumps({"file_names": files, "batch_size": 8, "mode": mode})
            runs[label, mode] = (start_tf(python, "run_pipeline.py", path, "make_input_fn", args, batches, out), out)
    drained = {}
    for key, (process, out) in runs.items():
        finish(process)
        drained[key] = load_json(out)
    for key, run in drained.items():
        # (features: frames, length; labels): the same structure and static shapes both ways
        assert run["kind"] == "({frames: T, length: T}, T)", key
        assert run["static_shapes"] == [[None, 5, 2], [None], [None]], key
    for label in ("before", "after"):
        examples = drained[label, "eval"]["examples"]
        assert len(examples) == 40 and len(set(examples)) == 40, label  # one epoch, then OutOfRangeError
        assert [shape[0][0] for shape in drained[label, "eval"]["batch_shapes"]] == [8] * 5, label
    every = set(drained["before", "eval"]["examples"])
    assert set(drained["after", "eval"]["examples"]) == every
    train = drained["after", "train"]["examples"]
    assert len(train) == 120
    for epoch in range(3):
        assert Counter(train[epoch * 40:(epoch + 1) * 40]) == Counter(every), epoch
    assert set(drained["before", "train"]["examples"]) == every
