"""No queue API is passed over in silence.

The master list (rules/catalogue.py) is held to three things: each name is claimed by exactly one
rule; each queue-looking public symbol of the real TF 1.8 wheel is on it (or below, with the reason
it is not queue code); and each name, used in a program, gets reported by its rule, with the
reason and the to-do shown to the user for those that are not rewritten.
"""
import re

import pytest

from qmigrate import engine
from qmigrate.names import canonical
from qmigrate.rules import ALL_RULES
from qmigrate.rules.catalogue import QUEUE_APIS
from qmigrate.rules.unsupported import NOT_MIGRATED, QueueApiNotMigrated, short_name
from qmigrate.targets import symbol_table

# Public TF 1.8 symbols that look like queue code by name but are not, and why.
NOT_QUEUE_CODE = {
    "tensorflow.batch_to_space": "a tensor op (spatial blocks)",
    "tensorflow.batch_to_space_nd": "a tensor op (spatial blocks)",
    "tensorflow.space_to_batch": "a tensor op (spatial blocks)",
    "tensorflow.space_to_batch_nd": "a tensor op (spatial blocks)",
    "tensorflow.required_space_to_batch_paddings": "a tensor op (spatial blocks)",
    "tensorflow.string_to_hash_bucket": "a hashing op",
    "tensorflow.string_to_hash_bucket_fast": "a hashing op",
    "tensorflow.string_to_hash_bucket_strong": "a hashing op",
    "tensorflow.train.NewCheckpointReader": "reads checkpoints, not input data",
    "tensorflow.train.queue_runner": "a module; its members are listed by their canonical names",
    "tensorflow.contrib.slim.parallel_reader.queue_runner": "a module imported by parallel_reader",
    "tensorflow.contrib.slim.prefetch_queue.queue_runner": "a module imported by prefetch_queue",
    "tensorflow.contrib.slim.dataset_data_provider.parallel_reader": "a module imported by the provider",
    "tensorflow.contrib.slim.queues.NestedQueueRunnerError": "an exception class of slim's QueueRunners",
    "tensorflow.contrib.training.NextQueuedSequenceBatch": "the result object of SequenceQueueingStateSaver",
    "tensorflow.contrib.training.resample_at_rate": "resamples within a tensor with gather; no queue",
    "tensorflow.contrib.training.weighted_resample": "resamples within a tensor with gather; no queue",
}
_NAMESPACES = ("tensorflow", "tensorflow.train", "tensorflow.train.queue_runner", "tensorflow.contrib.training",
               "tensorflow.contrib.slim.prefetch_queue", "tensorflow.contrib.slim.parallel_reader",
               "tensorflow.contrib.slim.queues", "tensorflow.contrib.slim.dataset_data_provider")
_LOOKS_LIKE_QUEUE_CODE = re.compile(
    r"Queue|Reader|_producer|batch|limit_epochs|match_filenames_once|queue_runner|Coordinator|Supervisor"
    r"|MonitoredSession|MonitoredTrainingSession|prefetch_queue|parallel_read|single_pass_read|DataProvider"
    r"|bucket|sample|StateSaver")


def test_each_queue_api_is_claimed_by_exactly_one_rule():
    claims = {name: [rule.code for rule in ALL_RULES if name in rule.names] for name in QUEUE_APIS}
    assert {name: codes for name, codes in claims.items() if len(codes) != 1} == {}
    assert len(set(QUEUE_APIS)) == len(QUEUE_APIS)


def test_rules_claim_only_listed_queue_apis():
    claimed = {name for rule in ALL_RULES for name in rule.names}
    assert claimed - set(QUEUE_APIS) == set()


def test_every_queue_looking_symbol_of_the_tf_1_8_wheel_is_listed():
    table = symbol_table("1.8")
    looks = set()
    for name in table.params:
        parent, _, last = name.rpartition(".")
        if parent in _NAMESPACES and _LOOKS_LIKE_QUEUE_CODE.search(last):
            looks.add(name)
    assert len(looks) > 40
    unlisted = {n for n in looks if canonical(n) not in QUEUE_APIS and n not in NOT_QUEUE_CODE}
    assert unlisted == set()
    assert set(NOT_QUEUE_CODE) <= looks, "an exclusion names no symbol of the wheel"


def test_every_api_not_rewritten_has_a_reason_and_a_to_do():
    assert set(QueueApiNotMigrated.names) == set(NOT_MIGRATED)
    for name, (why, to_do) in NOT_MIGRATED.items():
        assert len(why) > 20 and len(to_do) > 20, name


def _use(name: str) -> str:
    """A line calling `name` through `import tensorflow as tf`."""
    return "thing = %s(arg)\n" % short_name(name)


@pytest.mark.parametrize("name", QUEUE_APIS)
def test_each_queue_api_is_reported_by_its_rule(name, tmp_path):
    """Used next to queue code that stays (so that session notes show too), each API gets a
    finding from its rule; for APIs not rewritten, the message carries their own reason and to-do."""
    source = ("import tensorflow as tf\n\n"
              "kept = tf.train.batch_join(tensors_list, batch_size=4)\n" + _use(name)).encode()
    assert engine.may_contain_queue_code(source)
    analysis = engine.analyse(str(tmp_path / "example.py"), source, engine.Options())
    result = analysis.result()
    [rule] = [rule for rule in ALL_RULES if name in rule.names]
    on_line = [d for d in result.diagnostics if d.line == 4]
    assert [d.code for d in on_line] == [rule.code]
    if name in NOT_MIGRATED:
        why, to_do = NOT_MIGRATED[name]
        assert why in on_line[0].message and to_do in on_line[0].message
        assert short_name(name) in on_line[0].message


SPELLINGS = [
    ("import tensorflow as tf", "tf.contrib.slim.prefetch_queue.prefetch_queue",
     "tensorflow.contrib.slim.prefetch_queue.prefetch_queue"),
    ("import tensorflow as tf\nslim = tf.contrib.slim", "slim.prefetch_queue.prefetch_queue",
     "tensorflow.contrib.slim.prefetch_queue.prefetch_queue"),
    ("import tensorflow.contrib.slim as slim", "slim.prefetch_queue.prefetch_queue",
     "tensorflow.contrib.slim.prefetch_queue.prefetch_queue"),
    ("from tensorflow.contrib.slim import prefetch_queue", "prefetch_queue.prefetch_queue",
     "tensorflow.contrib.slim.prefetch_queue.prefetch_queue"),
    ("from tensorflow.contrib.slim.python.slim.data import prefetch_queue", "prefetch_queue.prefetch_queue",
     "tensorflow.contrib.slim.prefetch_queue.prefetch_queue"),
    ("from tensorflow.python.ops import data_flow_ops", "data_flow_ops.FIFOQueue", "tensorflow.FIFOQueue"),
    ("import tensorflow as tf", "tf.train.queue_runner.QueueRunner", "tensorflow.train.QueueRunner"),
    ("from tensorflow.python.training import queue_runner", "queue_runner.add_queue_runner",
     "tensorflow.train.add_queue_runner"),
    ("import tensorflow.compat.v1 as tf", "tf.train.shuffle_batch_join", "tensorflow.train.shuffle_batch_join"),
    ("from tensorflow.contrib.slim.python.slim.data import dataset_data_provider as ddp",
     "ddp.DatasetDataProvider", "tensorflow.contrib.slim.dataset_data_provider.DatasetDataProvider"),
    ("from tensorflow.python.training import monitored_session", "monitored_session.MonitoredTrainingSession",
     "tensorflow.train.MonitoredTrainingSession"),
    ("import tensorflow as tf", "tf.contrib.learn.io.read_batch_features",
     "tensorflow.contrib.learn.read_batch_features"),
    ("from tensorflow.contrib.learn.python.learn.learn_io import graph_io", "graph_io.read_keyed_batch_examples",
     "tensorflow.contrib.learn.read_keyed_batch_examples"),
]


def test_a_reader_class_handed_to_a_contrib_learn_reader_is_its_call_s_business(tmp_path):
    """tf.contrib.learn's readers take a reader class as `reader=`: the call is reported (QM001),
    not the class as a slim Dataset's (QM110) or as a reader no provider reads (QM2xx)."""
    source = (b"import tensorflow as tf\n\n\ndef input_fn(files):\n"
              b"    return tf.contrib.learn.io.read_batch_features(files, 4, {}, reader=tf.TFRecordReader)\n")
    analysis = engine.analyse(str(tmp_path / "example.py"), source, engine.Options())
    assert [d.code for d in analysis.result().diagnostics] == ["QM001"]


@pytest.mark.parametrize("imports,spelled,name", SPELLINGS, ids=[s[1] for s in SPELLINGS])
def test_every_spelling_reaches_the_rule(imports, spelled, name, tmp_path):
    """The issue's spellings of prefetch_queue, raw queues and runners all resolve to one API."""
    source = ("%s\n\nthing = %s(arg)\nkept = tf_input.batch_join(tensors_list, 4)\n" % (imports, spelled)).encode()
    source = b"from tensorflow.python.training import input as tf_input\n" + source
    analysis = engine.analyse(str(tmp_path / "example.py"), source, engine.Options())
    assert analysis.call_names and name in analysis.call_names.values()
    [rule] = [rule for rule in ALL_RULES if name in rule.names]
    assert rule.code in {d.code for d in analysis.result().diagnostics}
