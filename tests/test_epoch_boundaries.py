"""The emitted shuffle never stalls at an epoch boundary, and keeps every example once per epoch.

Run under real TensorFlow 1.8, 1.15 and 2.21 (graph mode) on the statements the synthesiser
emits for that target. No wall clock: a map that counts its calls shows how many records the
shuffle had read when each example came out. `shuffle(b).repeat()` stops reading while its
buffer drains at an epoch end and then reads b records before the next example (the stall of
issue 13); the emitted stage must have read b records ahead of every example it gives.
"""
import json
from collections import Counter

import pytest

from qmigrate import synth
from qmigrate.model import Batching, Pipeline, RecordFunction, Sharding, SliceSource
from qmigrate.targets import TARGETS
from tfenv import run_tf, tf_python

SIZE, BUFFER, EPOCHS = 40, 16, 3
OLD_STAGE = ["dataset = dataset.shuffle(buffer_size)", "dataset = dataset.repeat(num_epochs)"]


def _pipeline(*tensors, **changes):
    return Pipeline(SliceSource(tensors or ("examples",), "num_epochs", shuffle=False), None, None,
                    Batching("8", shuffle_buffer="buffer_size"), **changes)


def _shuffle_stage(version):
    statements = synth.dataset_statements(_pipeline(), "tf", TARGETS[version])
    return [s for s in statements if "shuffle" in s or "repeat" in s]


def _refill(version, stage, tmp_path):
    stage_file = tmp_path / "stage.json"
    stage_file.write_text(json.dumps(stage))
    out = tmp_path / "out.json"
    run_tf(tf_python(version), "shuffle_refill.py", stage_file, SIZE, BUFFER, EPOCHS, out)
    return json.loads(out.read_text())


def _buffer_kept_full(reads):
    """Every example left a full buffer: `BUFFER` records read ahead of it (or all of them)."""
    return all(read >= min(BUFFER + k, SIZE * EPOCHS) for k, read in enumerate(reads))


@pytest.mark.parametrize("version", ("1.8", "1.15", "2"), ids=lambda v: "tf" + v)
def test_the_buffer_is_refilled_across_epoch_ends(version, tmp_path):
    run = _refill(version, _shuffle_stage(version), tmp_path)
    assert _buffer_kept_full(run["reads"]), run["reads"]
    examples = run["examples"]
    assert Counter(examples) == Counter({example: EPOCHS for example in range(SIZE)})
    # Epoch boundaries are kept: each run of SIZE examples is one whole epoch, shuffled.
    for start in range(0, SIZE * EPOCHS, SIZE):
        assert sorted(examples[start:start + SIZE]) == list(range(SIZE))
    assert examples[:SIZE] != list(range(SIZE))


def test_shuffle_then_repeat_stalls_under_tf18(tmp_path):
    """The check above tells the stalling form apart: the emission this replaced fails it."""
    run = _refill("1.8", OLD_STAGE, tmp_path)
    assert not _buffer_kept_full(run["reads"])


@pytest.mark.parametrize("version", ("1.8", "1.15"), ids=lambda v: "tf" + v)
def test_shards_split_one_buffer_and_stay_disjoint(version, tmp_path):
    """Four shards of a queue's buffer: each example num_epochs times in all, always in one shard."""
    shards, size = 4, 1024  # 4 blocks of 64 per shard, 8 batches of 8 per epoch: no remainder
    # Two tensors (the example and its label, say): one alone hits a TF 1.15 unbatch quirk.
    pipeline = _pipeline("examples", "examples", sharding=Sharding("num_shards", "shard_index", split_buffer=True))
    statements = synth.dataset_statements(pipeline, "tf", TARGETS[version])
    assert any("max(buffer_size // num_shards, 1)" in s for s in statements)
    statements.append("batch = " + synth.next_element(pipeline, "tf", TARGETS[version]))
    path = tmp_path / "statements.json"
    path.write_text(json.dumps(statements))
    out = tmp_path / "out.json"
    run_tf(tf_python(version), "drain_shards.py", path, size, shards, out)
    got = json.loads(out.read_text())["shards"]
    assert Counter(e for shard in got for e in shard) == Counter({e: 3 for e in range(size)})
    sets = [set(shard) for shard in got]
    assert all(not (sets[i] & sets[j]) for i in range(shards) for j in range(i + 1, shards))
    for shard in got:  # every shard's epochs are whole: a third of what it gave, three times over
        epoch = len(shard) // 3
        assert all(sorted(shard[k * epoch:(k + 1) * epoch]) == sorted(set(shard)) for k in range(3))


@pytest.mark.parametrize("threads, expected", [
    ("4", "num_parallel_calls=max(4 // num_shards, 1)"),
    ("num_threads", "num_parallel_calls=max(num_threads // num_shards, 1)"),
    ("1", "num_parallel_calls=1"),  # a share of one thread is that thread
])
def test_shards_of_one_queue_share_its_threads(threads, expected):
    """Where the towers shared one queue, each shard's map runs its share of the queue's threads."""
    pipeline = Pipeline(SliceSource(("examples",), "num_epochs", shuffle=False), None,
                        RecordFunction("per_record", ("example",), "example"),
                        Batching("8", num_threads=threads, shuffle_buffer="buffer_size"),
                        sharding=Sharding("num_shards", "shard_index", split_buffer=True))
    [stage] = [s for s in synth.dataset_statements(pipeline, "tf", TARGETS["1.8"]) if ".map(" in s]
    assert expected in stage
    assert ("each shard runs its share" in stage) == (threads != "1")
