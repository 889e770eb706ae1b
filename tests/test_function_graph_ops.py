"""Per-record code moved into a map function must be code a dataset function can run (found by a
reviewer running migrated out-of-corpus code under TF 1.8):
- `tf.parallel_stack`, which TensorFlow rewrites only in the program's graph, failed when the
  pipeline ran ("could not be properly replaced"): written `tf.stack` (the same tensor) in the
  per-record code that moves into the map function; refused, naming the call, in a helper it
  calls or when imported by name;
- a reader helper returning Python lists of tensors for `*_join(..., enqueue_many=True)` (each list
  stacked by the queue) made a map function TF 1.8 refused to build: each list part is now made a
  tensor, as the queue made it."""
import json
from collections import Counter

from qmigrate import api
from tfenv import dict_records, finish, load_json, start_tf, tf_python

STACKED = '''import tensorflow as tf


def decode(serialized):
    x = tf.parse_single_example(serialized, {{'x': tf.FixedLenFeature([3], tf.float32)}})['x']
    return {stack}([x[0], x[1]])


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(queue)
    pair = {inline}
    return tf.train.batch([pair], batch_size=batch_size)
'''

LISTS = '''import tensorflow as tf


def read_views(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    x = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
    views, scales = [], []
    for scale in (1.0, 2.0):
        views.append(x * scale)
        scales.append(tf.constant(scale))
    return views, scales


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    data_list = [read_views(queue) for _ in range(2)]
    views, scales = tf.train.batch_join(data_list, batch_size=batch_size, enqueue_many=True)
    return views, scales
'''


def _migrated(tmp_path, text):
    path = tmp_path / "inputs.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    return result


def _drained(python, tmp_path, before, after, args):
    """What run_pipeline.py reads from `inputs` of each program text, run side by side."""
    runs = {}
    for label, code in (("before", before), ("after", after)):
        path = tmp_path / (label + ".py")
        path.write_text(code)
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "run_pipeline.py", str(path), "inputs", json.dumps(args), 1000, out), out)
    for process, _ in runs.values():
        finish(process)
    return load_json(runs["before"][1]), load_json(runs["after"][1])


def _reasons(result):
    return {d.message.split("; not rewritten: ")[1].split("; to do:")[0] for d in result.diagnostics
            if not d.fixed and "not rewritten" in d.message}


def test_parallel_stack_in_the_per_record_code_is_stack_in_the_map_function(tmp_path):
    result = _migrated(tmp_path, STACKED.format(stack="tf.stack", inline="tf.parallel_stack([decode(serialized)])"))
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    new = result.new_source.decode()
    assert "pair = tf.stack([decode(serialized)])" in new and "parallel_stack" not in new


def test_parallel_stack_imported_by_name_keeps_the_file(tmp_path):
    text = STACKED.format(stack="tf.stack", inline="parallel_stack([decode(serialized)])").replace(
        "import tensorflow as tf\n", "import tensorflow as tf\nfrom tensorflow import parallel_stack\n")
    result = _migrated(tmp_path, text)
    assert not result.changed
    assert ("the per-record code calls `parallel_stack` (line 13), which only the program's graph can run, not a "
            "map function's (TensorFlow rewrites it when it optimises the program's graph); write it `tf.stack`, "
            "which gives the same tensor") in _reasons(result)


def test_tf1_8_parallel_stack_made_stack_drains_the_same(tmp_path):
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    text = STACKED.format(stack="tf.stack", inline="tf.parallel_stack([decode(serialized), decode(serialized) * 2])")
    new = _migrated(tmp_path, text).new_source.decode()
    old, new_run = _drained(python, tmp_path, text, new, {"files": files, "batch_size": 5})
    assert new_run["static_shapes"] == old["static_shapes"] == [[5, 2, 2]]
    assert new_run["examples"] == old["examples"] and len(old["examples"]) == 50  # file order, one epoch


def test_parallel_stack_in_a_helper_the_per_record_code_calls_keeps_the_file(tmp_path):
    result = _migrated(tmp_path, STACKED.format(stack="tf.parallel_stack", inline="decode(serialized)"))
    assert not result.changed
    assert any("and `tf.parallel_stack` (line 6, in decode()) only the program's graph can run" in reason
               for reason in _reasons(result))


def test_tf_stack_migrates(tmp_path):
    result = _migrated(tmp_path, STACKED.format(stack="tf.stack", inline="decode(serialized)"))
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]


def test_tf1_8_lists_of_tensors_joined_with_enqueue_many_drain_the_same(tmp_path):
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    result = _migrated(tmp_path, LISTS)
    new = result.new_source.decode()
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    assert "return tuple(tf.convert_to_tensor(part) if isinstance(part, list) else part for part in data_list)" in new
    old, new_run = _drained(python, tmp_path, LISTS, new, {"files": files, "batch_size": 4})
    assert new_run["static_shapes"] == old["static_shapes"] == [[4, 3], [4]]
    assert len(new_run["examples"]) == len(old["examples"]) == 100  # 50 records, 2 views each, 25 batches
    assert Counter(new_run["examples"]) == Counter(old["examples"])
