"""A slice producer's shuffle of in-memory rows repeats them at the source (shuffle_and_repeat):
`shuffle(rows).repeat()` read every row into its buffer again before the first batch of each
epoch. Measured under TF 1.8 (bench/slice_epoch_bench.py, 50,000 CIFAR-sized rows, batches of
128, 5 ms steps): the longest fetch after warm-up 137 ms (331x the median) before, 2.9 ms (7.9x)
now, the queue 25.6 ms (6.2x); every epoch whole in all three (synth.rows_repeatable). TF
behaviour: the slices, held_records and dequeued_ids cases of tests/test_tf_behaviour.py."""
import pytest

from qmigrate import api

SHAPE = '''import tensorflow as tf


def batches(images, labels, batch_size{params}):
    image, label = tf.train.slice_input_producer([images, labels]{producer})
    return {batching}
'''

BATCH = "tf.train.batch([image, label], batch_size)"
SHUFFLE_BATCH = "tf.train.shuffle_batch([image, label], batch_size, 1000, 500)"


def _migrated(tmp_path, producer="", batching=BATCH, params=""):
    path = tmp_path / "rows.py"
    path.write_text(SHAPE.format(producer=producer, batching=batching, params=params))
    result, = api.migrate([str(path)])
    assert result.changed and not result.remaining
    return result.new_source.decode()


def _stages(text):
    return [line.strip() for line in text.splitlines() if line.strip().startswith("dataset = dataset.")]


def test_shuffled_rows_are_shuffled_and_repeated_at_the_source(tmp_path):
    assert _stages(_migrated(tmp_path))[:2] == [
        "dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(images, out_type=tf.int64)[0]))",
        "dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))"]


def test_epochs_and_seed_go_with_that_stage(tmp_path):
    stages = _stages(_migrated(tmp_path, producer=", num_epochs=3, seed=7"))
    assert stages[0] == ("dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(images, "
                         "out_type=tf.int64)[0], 3, seed=7))")
    assert not any(".repeat(" in stage for stage in stages)


def test_a_shuffle_batch_after_rows_shuffled_every_epoch_adds_no_buffer(tmp_path):
    # The rows are in a new order every epoch already; the epochs stay whole, as everywhere.
    stages = _stages(_migrated(tmp_path, batching=SHUFFLE_BATCH))
    assert stages[0].startswith("dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(images")
    assert len([stage for stage in stages if "shuffle" in stage]) == 1


@pytest.mark.parametrize("producer,batching,params", [
    (", shuffle=False", BATCH, ""),  # rows in order: repeated after, as before
    (", shuffle=train", SHUFFLE_BATCH, ", train=True"),  # the batch's buffer is the only shuffle when not training
])
def test_other_shapes_keep_their_stages(tmp_path, producer, batching, params):
    text = _migrated(tmp_path, producer=producer, batching=batching, params=params)
    assert "shuffle_and_repeat(tf.shape(images" not in text
