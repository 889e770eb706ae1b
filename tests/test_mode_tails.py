"""An if/else by mode whose one arm batches and whose other takes the records one at a time
(recognise._own_records_arm, branch_records.records_arm_if): that arm takes, from the dataset, the
per-record names it reads, and the map function returns per arm what the arm takes. Refused, with
the reason, where a path would leave a name unbound. (TF behaviour: tests/test_tf_behaviour.py,
mode_tails.)"""
import ast

import pytest

from qmigrate import api

HEAD = '''import tensorflow as tf


def inputs(files, mode, batch_size):
    queue = tf.train.string_input_producer(files)
    _, value = tf.TFRecordReader().read(queue)
    x = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
'''


def _migrated(tmp_path, body):
    path = tmp_path / "inputs.py"
    path.write_text(HEAD + body)
    result, = api.migrate([str(path)], jobs=1)
    return result


def _function(source, name):
    """The source of the function `name` defined in `source` (at any depth)."""
    tree = ast.parse(source)
    node, = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    return ast.get_source_segment(source, node)


def test_the_batching_arm_keeps_its_per_record_code_in_the_map_function(tmp_path):
    result = _migrated(tmp_path, '''
    if mode == 'train':
        # reversed for training
        turned = tf.reverse(x, [0])
        batch = tf.train.batch([turned], batch_size)
    elif mode == 'test':
        batch = tf.stack([x, -x], 0)
    return batch
''')
    new = result.new_source.decode()
    assert "tf.train" not in new and "TFRecordReader" not in new
    assert _function(new, "parse_record") == (
        "def parse_record(value):\n"
        "        x = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], tf.float32)})['x']\n"
        "        if mode == 'train':\n"
        "            # reversed for training\n"
        "            turned = tf.reverse(x, [0])\n"
        "            return turned\n"
        "        return x")
    # each arm takes its own: the batch, or one record under the name the arm reads
    assert "        batch = dataset.make_one_shot_iterator().get_next()\n" in new
    assert ("        dataset = dataset.repeat()\n"
            "        x = dataset.make_one_shot_iterator().get_next()\n"
            "        batch = tf.stack([x, -x], 0)\n") in new
    assert not [d for d in result.diagnostics if not d.fixed]


def test_an_arm_without_batching_that_comes_first_returns_in_the_map_function_and_the_rest_follows(tmp_path):
    result = _migrated(tmp_path, '''
    if mode == 'eval':
        batch = tf.expand_dims(x, 0)
    else:
        doubled = x * 2.0
        batch = tf.train.batch([doubled], batch_size)
    return batch
''')
    new = result.new_source.decode()
    assert _function(new, "parse_record") == (
        "def parse_record(value):\n"
        "        x = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], tf.float32)})['x']\n"
        "        if mode == 'eval':\n"
        "            return x\n"
        "        else:\n"
        "            doubled = x * 2.0\n"
        "            return doubled")  # every arm returns: no `return` after the if


def test_a_batch_bound_to_another_name_leaves_the_record_name_to_the_other_arm(tmp_path):
    result = _migrated(tmp_path, '''
    if batch_size is None:
        batch = tf.expand_dims(x, 0)
    else:
        batch = tf.train.batch([x], batch_size)
    return batch
''')
    new = result.new_source.decode()
    assert "        x = dataset.make_one_shot_iterator().get_next()\n        batch = tf.expand_dims(x, 0)\n" in new
    assert "        batch = dataset.make_one_shot_iterator().get_next()\n" in new
    assert "if batch_size is None" not in _function(new, "parse_record")  # one element for both arms


@pytest.mark.parametrize("body,reason", [
    # another mode runs neither arm, and reads the record after the if
    ('''
    batch = None
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    elif mode == 'test':
        batch = tf.expand_dims(x, 0)
    return batch, x
''', "the per-record `x` is read after it, where a path that runs neither arm would leave it unbound"),
    # the batching arm binds its batch elsewhere, and `x` is read after the if
    ('''
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.expand_dims(x, 0)
    return batch, x
''', "the per-record `x` is read after it, where the batching arm would leave it unbound"),
    # the per-record code binds `y` on some paths only, in an if/elif
    ('''
    if mode == 'stereo':
        y = -x
    elif mode == 'mirror':
        y = x
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.stack([x, y], 0) if mode in ('stereo', 'mirror') else tf.expand_dims(x, 0)
    return batch
''', "reads the per-record `y`, which the per-record code binds only on some paths (line 9), and that `if` "
        "has an `elif`"),
    # ... under a test that calls a function
    ('''
    if mode.endswith('stereo'):
        y = -x
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.stack([x, y], 0) if mode == 'stereo' else tf.expand_dims(x, 0)
    return batch
''', "that `if`'s test calls a function, which would be called again"),
    # ... under a test of a value the per-record code makes, which the arm could not test again
    ('''
    rank = len(x.get_shape())
    if rank == 1:
        y = -x
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.stack([x, y], 0) if rank == 1 else tf.expand_dims(x, 0)
    return batch
''', "that `if`'s test reads `rank`, which the per-record code binds (the map function's alone)"),
    # ... and the arm reads nothing else: on the other paths it would take nothing
    ('''
    if mode == 'stereo':
        y = -x
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.expand_dims(y, 0)
    return batch
''', "reads only per-record names that the `if` at line 9 binds on some paths: it would take nothing"),
    # a condition the map function would evaluate again
    ('''
    if mode.startswith('train'):
        batch = tf.train.batch([x * 2.0], batch_size)
    else:
        batch = tf.expand_dims(x, 0)
    return batch
''', "a condition calls a function, which the map function would call again"),
    # more arms than one batching and one not
    ('''
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    elif mode == 'eval':
        batch = tf.train.batch([x], 2 * batch_size)
    else:
        batch = tf.expand_dims(x, 0)
    return batch
''', "more than one other arm"),
])
def test_what_an_arm_could_not_take_is_left_with_the_reason(tmp_path, body, reason):
    result = _migrated(tmp_path, body)
    assert not result.changed
    found, = [d for d in result.diagnostics if d.code == "QM101"]
    assert reason in found.message


def test_a_name_bound_under_a_test_is_taken_where_the_test_binds_it(tmp_path):
    result = _migrated(tmp_path, '''
    if mode == 'stereo':
        y = -x
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.stack([x, y], 0) if mode == 'stereo' else tf.expand_dims(x, 0)
    return batch
''')
    assert result.changed
    new = result.new_source.decode()
    assert "return (x, y) if mode == 'stereo' else x" in _function(new, "parse_record")
    assert ("if mode == 'stereo':\n            x, y = dataset.make_one_shot_iterator().get_next()\n"
            "        else:\n            x = dataset.make_one_shot_iterator().get_next()\n") in new



def test_an_arm_whose_first_statements_moved_opens_without_a_blank_line(tmp_path):
    result = _migrated(tmp_path, '''
    if mode == 'train':
        turned = tf.reverse(x, [0])

        # twice the batch for training
        n = 2 * batch_size
        batch = tf.train.shuffle_batch([turned], n, 40, 10)
    else:
        batch = tf.expand_dims(x, 0)
    return batch
''')
    assert result.changed
    assert "    if mode == 'train':\n        # twice the batch for training\n        n = 2 * batch_size\n" in \
        result.new_source.decode()


def test_the_arm_takes_its_names_at_the_files_own_indentation(tmp_path):
    text = (HEAD + '''
    if mode == 'stereo':
        y = -x
    if mode == 'train':
        batch = tf.train.batch([x], batch_size)
    else:
        batch = tf.stack([x, y], 0) if mode == 'stereo' else tf.expand_dims(x, 0)
    return batch
''').replace("    ", "  ")
    path = tmp_path / "inputs.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    assert "    if mode == 'stereo':\n      x, y = dataset.make_one_shot_iterator().get_next()\n    else:\n" in \
        result.new_source.decode()
