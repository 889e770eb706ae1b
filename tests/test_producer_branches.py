"""A producer made in if/elif arms (recognise._branched_producer): what the arms give differently
is named in each arm for the dataset; `shuffle=True`/`False` in an if/else is the test itself; a
capacity is not named (a dataset buffers no file names); an argument left out is the default.
(TF behaviour: tests/test_tf_behaviour.py, producer_in_branches.)"""
from qmigrate import api

SHAPE = '''import tensorflow as tf


def inputs(files, batch_size, train, seed=None):
    if train:
        queue = tf.train.string_input_producer({first})
    else:
        queue = tf.train.string_input_producer({second})
    _, value = tf.TFRecordReader().read(queue)
    return tf.train.batch([value], batch_size)
'''


def _migrated(tmp_path, first, second):
    path = tmp_path / "inputs.py"
    path.write_text(SHAPE.format(first=first, second=second))
    result, = api.migrate([str(path)], jobs=1)
    return result


def test_arms_that_differ_only_in_capacity_make_one_dataset_and_go(tmp_path):
    new = _migrated(tmp_path, "files, capacity=16", "files, capacity=1").new_source.decode()
    assert "if train" not in new and "capacity" not in new
    assert "    dataset = tf.data.Dataset.from_tensor_slices(files)\n" in new


def test_a_shuffle_the_test_chooses_is_the_test(tmp_path):
    new = _migrated(tmp_path, "files, shuffle=True", "files, shuffle=False").new_source.decode()
    assert "    if train:\n        dataset = dataset.shuffle(" in new


def test_a_shuffle_the_test_refuses_is_the_test_negated(tmp_path):
    new = _migrated(tmp_path, "files, shuffle=False", "files, shuffle=True").new_source.decode()
    assert "    if not train:\n        dataset = dataset.shuffle(" in new
    assert "string_input_producer" not in new


def test_each_arm_names_its_epochs_the_default_where_it_gives_none(tmp_path):
    new = _migrated(tmp_path, "files", "files[:1], num_epochs=1").new_source.decode()
    assert ("    if train:\n        filenames = files\n        num_epochs = None\n"
            "    else:\n        filenames = files[:1]\n        num_epochs = 1\n") in new
    assert "    dataset = dataset.repeat(num_epochs)\n" in new


def test_an_argument_given_in_one_arm_only_without_a_default_keeps_the_producer(tmp_path):
    result = _migrated(tmp_path, "files, name='train_files'", "files")
    assert not result.changed
    found = [d for d in result.diagnostics if d.code == "QM101"]
    assert found and all("differ in `name=`, given in some arms only" in d.message for d in found)


def test_a_shuffle_test_beside_other_arguments_the_arms_name_keeps_its_test(tmp_path):
    # Every argument the arms give differently is replaced in one pass: the shuffle's test is not
    # lost to the seed's or the epochs' names (it was: the eval arm's files came shuffled).
    new = _migrated(tmp_path, "files, shuffle=True, seed=seed", "files, shuffle=False, num_epochs=1"
                    ).new_source.decode()
    assert "    if train:\n        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64), seed=seed_2)\n" in new
    assert "        num_epochs = None\n        seed_2 = seed\n" in new and "        num_epochs = 1\n        seed_2 = None\n" in new


def test_literal_seeds_of_each_arm_are_both_named(tmp_path):
    new = _migrated(tmp_path, "files, seed=7", "files, seed=8").new_source.decode()
    assert "        seed = 7\n" in new and "        seed = 8\n" in new
    assert "dataset.shuffle(tf.size(files, out_type=tf.int64), seed=seed)" in new
