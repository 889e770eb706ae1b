"""Multi-tower programs trained before and after migration on 4 devices under TensorFlow 1.8 and 1.15.

The devices are virtual: `device_count={'CPU': 4}` with each `/gpu:N` scope mapped to `/cpu:N`
(tests/tf/train_towers.py); this machine has no GPU. The after-program is produced here by
running qmigrate over a copy of the before-program. Every record carries an example id, and each
tower's ids are fetched at every step, so the tests see exactly which example reached which tower.
"""
import os
import statistics

import pytest

from conftest import TESTDATA
from qmigrate.targets import TARGETS
from test_golden import assemble_program, migrate_tree
from tfenv import finish, load_json, run_tf, start_tf, tf_python

TOWERS = 4
BATCH = 16  # per tower
TRAIN_EXAMPLES = 5 * 256
STEPS_PER_EPOCH = TRAIN_EXAMPLES // (TOWERS * BATCH)  # 20
EPOCHS = 8  # 160 steps: two passes of one tower over the whole data set (per_tower)
# Stated tolerances: the tutorial's random crops and flips make two trainings differ even with
# the same pipeline, so the comparison is statistical. On this data both reach ~1.0 (measured:
# 1.0 / 1.0 accuracy, final losses 0.008-0.009, in two before/after pairs).
MIN_ACCURACY = 0.9  # chance is 0.1
ACCURACY_TOLERANCE = 0.05
LOSS_TOLERANCE = 0.1


@pytest.fixture(scope="module", params=("1.8", "1.15"), ids=lambda v: "tf" + v)
def tf_version(request):
    """The TensorFlow both programs run under; the migration targets it (--target-tf)."""
    return request.param


@pytest.fixture(scope="module")
def cifar_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cifar")
    run_tf(tf_python("1.8"), "make_data.py", folder, "--learnable-cifar")
    return str(folder)


def _train_both(scenario, cifar_data, tmp_path, tf_version, train_module, model_module, **migrate_options):
    python = tf_python(tf_version)
    source = os.path.join(TESTDATA, "towers", scenario, "before")
    before = assemble_program(source, str(tmp_path / "before"))
    after = str(tmp_path / "after")
    migrate_tree(source, after, target=TARGETS[tf_version], **migrate_options)
    runs = {}
    for label, program in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "train_towers.py", program, train_module, model_module, cifar_data,
                                tmp_path / ("work_" + label), STEPS_PER_EPOCH * EPOCHS, out,
                                "batch_size=%d" % BATCH), out)
    results = {}
    for label, (process, out) in runs.items():
        finish(process)
        results[label] = load_json(out)
    return results["before"], results["after"]


def _epochs(run):
    """The examples of each epoch: steps grouped STEPS_PER_EPOCH at a time, all towers together."""
    return [[example for step in run["ids"][start:start + STEPS_PER_EPOCH] for tower in step for example in tower]
            for start in range(0, len(run["ids"]), STEPS_PER_EPOCH)]


def assert_each_example_once_per_epoch_and_towers_disjoint(run):
    assert len(run["ids"]) == STEPS_PER_EPOCH * EPOCHS
    for step in run["ids"]:
        assert len(step) == TOWERS and all(len(tower) == BATCH for tower in step)
        flat = [example for tower in step for example in tower]
        assert len(set(flat)) == len(flat), "the same example reached two towers in one step"
    for epoch in _epochs(run):
        assert sorted(epoch) == list(range(TRAIN_EXAMPLES)), "an epoch did not hold every example exactly once"


def assert_trains_like(before, after):
    for run in (before, after):
        losses = run["losses"]
        assert statistics.mean(losses[-20:]) < 0.6 * statistics.mean(losses[:10]), "loss did not fall"
        assert run["accuracy"] >= MIN_ACCURACY
        assert len(run["eval_ids"]) == 256  # the eval pipeline (inputs()) still works for its callers
    assert abs(after["accuracy"] - before["accuracy"]) <= ACCURACY_TOLERANCE
    assert abs(statistics.mean(after["losses"][-20:]) - statistics.mean(before["losses"][-20:])) <= LOSS_TOLERANCE


def test_tutorial_layout_trains_equivalently(cifar_data, tmp_path, tf_version):
    before, after = _train_both("tutorial", cifar_data, tmp_path, tf_version, "cifar10_multi_gpu_train", "cifar10")
    assert_each_example_once_per_epoch_and_towers_disjoint(after)
    assert_trains_like(before, after)


def test_towers_over_a_device_list_train_equivalently(cifar_data, tmp_path):
    """`for i, device in enumerate(devices): with tf.device(device):` shards like `range` (under 1.8)."""
    before, after = _train_both("device_list", cifar_data, tmp_path, "1.8", "cifar10_multi_gpu_train", "cifar10")
    assert_each_example_once_per_epoch_and_towers_disjoint(after)
    assert_trains_like(before, after)


def test_a_hand_built_example_queue_trains_equivalently(cifar_data, tmp_path):
    """The tutorial with shuffle_batch spelled by hand (RandomShuffleQueue, QueueRunner of 4
    enqueue ops, dequeue_many) under the prefetch queue's tower loop: sharded per tower (TF 1.8)."""
    before, after = _train_both("handbuilt_queue", cifar_data, tmp_path, "1.8", "cifar10_multi_gpu_train", "cifar10")
    assert_each_example_once_per_epoch_and_towers_disjoint(after)
    assert_trains_like(before, after)


def test_queue_inside_the_tower_loop_trains_equivalently(cifar_data, tmp_path, tf_version):
    """One shared reader, a shuffle_batch per tower: after, one sharded dataset per tower."""
    before, after = _train_both("queue_in_loop", cifar_data, tmp_path, tf_version, "train_tfrecords",
                                "train_tfrecords")
    assert_each_example_once_per_epoch_and_towers_disjoint(after)
    assert_trains_like(before, after)


def test_shared_batch_bug_is_fixed_only_when_unsafe(cifar_data, tmp_path, tf_version):
    """Every tower got the same batch; the --unsafe fix gives each its own shard."""
    before, after = _train_both("shared_batch", cifar_data, tmp_path, tf_version, "cifar10_multi_gpu_train", "cifar10",
                                unsafe=True)
    for step in before["ids"]:
        assert all(tower == step[0] for tower in step), "before: the towers should all see the same batch"
    assert_each_example_once_per_epoch_and_towers_disjoint(after)
    for run in (before, after):
        assert run["accuracy"] >= MIN_ACCURACY


def test_per_tower_pipelines_keep_their_meaning(cifar_data, tmp_path, tf_version):
    """Each tower read the whole data set; migrated without --unsafe it still does."""
    before, after = _train_both("per_tower", cifar_data, tmp_path, tf_version, "cifar10_multi_gpu_train", "cifar10")
    tower_epoch = TRAIN_EXAMPLES // BATCH  # steps for one tower to see the whole data set
    for tower in range(TOWERS):
        seen = [example for step in after["ids"][:tower_epoch] for example in step[tower]]
        assert sorted(seen) == list(range(TRAIN_EXAMPLES)), "each tower should read the whole data set"
    assert_trains_like(before, after)


def test_deterministic_tier_gives_bitwise_equal_losses(cifar_data, tmp_path, tf_version):
    """One tower, no shuffling or random distortion, op-level seeds: 3 epochs, every loss equal."""
    python = tf_python(tf_version)
    before = os.path.join(TESTDATA, "towers", "deterministic", "before")
    after = str(tmp_path / "after")
    migrate_tree(before, after, target=TARGETS[tf_version])
    runs = {}
    for label, program in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "train_towers.py", program, "train_plain", "train_plain", cifar_data,
                                tmp_path / ("work_" + label), 3 * TRAIN_EXAMPLES // BATCH, out, "batch_size=%d" % BATCH,
                                "num_gpus=1"), out)
    got = {}
    for label, (process, out) in runs.items():
        finish(process)
        got[label] = load_json(out)
    assert got["after"]["ids"] == got["before"]["ids"]  # the same examples in the same order
    assert got["after"]["losses"] == got["before"]["losses"]
    assert got["after"]["losses"][-1] < got["after"]["losses"][0]


def test_tutorial_layout_with_one_shared_iterator(cifar_data, tmp_path, tf_version):
    """--tower-strategy shared-iterator: every tower takes its batches from one iterator."""
    before, after = _train_both("tutorial", cifar_data, tmp_path, tf_version, "cifar10_multi_gpu_train", "cifar10",
                                tower_strategy="shared-iterator")
    assert_each_example_once_per_epoch_and_towers_disjoint(after)
    assert_trains_like(before, after)
