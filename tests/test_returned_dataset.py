"""Records a function returns, handed by their caller to another function that works on each and
batches them (returned_dataset): migrated together when nothing else sees either function, else
the batch stays and says why."""
import os

from conftest import TESTDATA
from qmigrate import api

GOLDEN = os.path.join(TESTDATA, "single", "returned_dataset.before.py")


def _source():
    with open(GOLDEN) as handle:
        return handle.read()


def _migrate(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}


def _batch_reason(result):
    [message] = [d.message for d in result.diagnostics if d.code == "QM301"]
    return message


def test_the_three_functions_migrate_together_and_keep_their_signatures(tmp_path):
    result = _migrate(tmp_path, {"samples.py": _source()})["samples.py"]
    output = result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics)
    assert "return dataset_2.map(parse_record), count" in output
    assert "dataset = samples.map(prepare_record, num_parallel_calls=threads)" in output
    for signature in ("def _read_samples(files, training):",
                      "def _batch_samples(samples, count, batch_size, max_steps, threads):",
                      "def sample_batches(files, batch_size, max_steps=0, training=False, threads=1):"):
        assert signature in output
    # the outer max_steps is read before the per-record code binds it again: renamed there
    assert "record_max_steps = tf.minimum(max_steps, steps) if max_steps else steps" in output


def test_a_caller_in_another_module_keeps_both_functions_and_says_where(tmp_path):
    other = "import samples\n\nrecords, total = samples._read_samples(['a'], False)\n"
    results = _migrate(tmp_path, {"samples.py": _source(), "peek.py": other})
    reason = _batch_reason(results["samples.py"])
    assert "not rewritten" in reason and "_read_samples() is called from other modules too" in reason
    assert "peek.py:3" in reason
    assert "tf.train.batch(" in results["samples.py"].new_source.decode()


def test_a_second_call_of_the_reader_leaves_the_batch(tmp_path):
    text = _source() + "\n\ndef first_sample(files):\n    return _read_samples(files, False)[0]\n"
    result = _migrate(tmp_path, {"samples.py": text})["samples.py"]
    assert not [d for d in result.diagnostics if d.code == "QM301" and d.fixed]
    assert "tf.train.batch(" in result.new_source.decode()


def test_per_record_values_returned_beside_the_records_leave_the_batch(tmp_path):
    text = _source().replace("return Sample(values=values, steps=steps, sample_id=sample_id), count",
                             "return Sample(values=values, steps=steps, sample_id=sample_id), steps")
    result = _migrate(tmp_path, {"samples.py": text})["samples.py"]
    reason = _batch_reason(result)
    assert "_read_samples() returns per-record values beside the records" in reason


def test_per_record_names_read_after_the_batch_leave_it(tmp_path):
    text = _source().replace("    batch['num_batches'] = count // batch_size\n",
                             "    batch['num_batches'] = count // batch_size\n    batch['last'] = values\n")
    reason = _batch_reason(_migrate(tmp_path, {"samples.py": text})["samples.py"])
    assert "_batch_samples() reads the per-record `values` after the batch" in reason


def test_a_variable_made_per_record_leaves_the_batch(tmp_path):
    text = _source().replace("    values = values[:max_steps]\n",
                             "    values = values[:max_steps] * tf.Variable(1.0)\n")
    reason = _batch_reason(_migrate(tmp_path, {"samples.py": text})["samples.py"])
    assert "calls `tf.Variable(1.0)`: in a map function" in reason


def test_a_name_the_per_record_code_reads_bound_again_before_the_batch_leaves_it(tmp_path):
    text = _source().replace("    batch_tensors = {", "    count = count + 0\n    batch_tensors = {").replace(
        "'ids': sample_id}", "'ids': sample_id + count}")
    reason = _batch_reason(_migrate(tmp_path, {"samples.py": text})["samples.py"])
    assert "`count`, which its per-record code reads, is bound again before the batch" in reason


def test_a_list_of_one_tensor_leaves_the_batch(tmp_path):
    text = _source().replace("batch = tf.train.batch(batch_tensors,", "batch = tf.train.batch([values],").replace(
        "    batch['num_batches'] = count // batch_size\n    return batch", "    return batch")
    reason = _batch_reason(_migrate(tmp_path, {"samples.py": text})["samples.py"])
    assert "a list of one tensor" in reason


def test_a_summary_of_each_record_leaves_the_batch(tmp_path):
    text = _source().replace("    values = values[:max_steps]\n",
                             "    values = values[:max_steps]\n    tf.summary.histogram('values', values)\n")
    reason = _batch_reason(_migrate(tmp_path, {"samples.py": text})["samples.py"])
    assert "calls `tf.summary.histogram('values', values)`" in reason


def test_records_of_a_structure_not_seen_leave_the_batch(tmp_path):
    with open(os.path.join(TESTDATA, "single", "returned_tuple_records.before.py")) as handle:
        text = handle.read()
    # a tuple's parts reach a map function as arguments, a dict whole: a call's result could be either
    text = text.replace("    return features['id'], tf.reshape(features['x'], [3])",
                        "    return _pair(features)").replace("import tensorflow as tf\n", (
                            "import tensorflow as tf\n\n\ndef _pair(features):\n"
                            "    return features['id'], features['x']\n"))
    reason = _batch_reason(_migrate(tmp_path, {"records.py": text})["records.py"])
    assert "_parsed_records() returns `_pair(features)` as its records, whose structure qmigrate does not see" \
        in reason


def test_a_batch_returned_as_it_is_made_gives_the_list_it_gave(tmp_path):
    with open(os.path.join(TESTDATA, "single", "returned_tuple_records.before.py")) as handle:
        text = handle.read()
    text = text.replace("    ids, xs = tf.train.batch([example_id, x], batch_size=batch_size, "
                        "allow_smaller_final_batch=True)\n    return ids, xs\n",
                        "    return tf.train.batch([example_id, x], batch_size=batch_size, "
                        "allow_smaller_final_batch=True)\n")
    result = _migrate(tmp_path, {"records.py": text})["records.py"]
    assert all(d.fixed for d in result.diagnostics)
    output = result.new_source.decode()
    assert "    def prepare_record(example_id, x):\n        x = x * scale\n        return example_id, x\n" in output
    assert "    return list(dataset.make_one_shot_iterator().get_next())\n" in output


def test_per_record_code_that_stores_into_an_outer_object_leaves_the_batch(tmp_path):
    text = _source().replace("    tf.logging.info('Batching %d samples', count)\n",
                             "    tf.logging.info('Batching %d samples', count)\n    seen = {}\n").replace(
        "    values = values[:max_steps]\n", "    values = values[:max_steps]\n    seen['values'] = values\n")
    reason = _batch_reason(_migrate(tmp_path, {"samples.py": text})["samples.py"])
    assert "stores into `seen`, which it did not make" in reason


# --- t2t: records handed whole (a dict) to a function that buckets them by length ---
BUCKETED = os.path.join(TESTDATA, "single", "bucketed_records.before.py")
SCOPED = os.path.join(TESTDATA, "single", "scoped_bucketed_records.before.py")


def _text(path):
    with open(path) as handle:
        return handle.read()


def _bucket_reason(result):
    [message] = [d.message for d in result.diagnostics if d.code == "QM309"]
    return message


def test_bucketed_dict_records_migrate_with_one_size_per_bucket_chosen_as_the_queue_chose(tmp_path):
    result = _migrate(tmp_path, {"examples.py": _text(BUCKETED)})["examples.py"]
    output = result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics)
    assert "    return dataset.map(parse_record)\n" in output
    assert "    def prepare_record(examples):\n" in output
    assert "        return (length, examples), length <= scheme['max_length']\n" in output
    assert "    dataset = dataset.filter(lambda element, keep: keep)\n" in output
    # a subscript may hold a list (one size per bucket) or one size: decided where the batching is made
    assert "    if isinstance(scheme['batch_sizes'], (list, tuple)):\n" in output
    assert "window_size_func=lambda bucket: tf.gather(tf.cast(scheme['batch_sizes'], tf.int64), bucket)" in output
    assert "tf.contrib.training" not in output
    for signature in ("def read_examples(files, training):", "def batch_examples(examples, scheme):"):
        assert signature in output


def test_a_literal_list_of_sizes_buckets_by_it_without_a_test(tmp_path):
    text = _text(BUCKETED).replace("        scheme['batch_sizes'],\n", "        [4, 3, 2],\n")
    output = _migrate(tmp_path, {"examples.py": text})["examples.py"].new_source.decode()
    assert "isinstance(" not in output
    assert "window_size_func=lambda bucket: tf.gather(tf.cast([4, 3, 2], tf.int64), bucket)" in output


def test_a_computed_batch_size_leaves_the_bucketing(tmp_path):
    text = _text(BUCKETED).replace("        scheme['batch_sizes'],\n", "        sizes_of(scheme),\n")
    text += "\n\ndef sizes_of(scheme):\n    return scheme['batch_sizes']\n"
    result = _migrate(tmp_path, {"examples.py": text})["examples.py"]
    assert "its `batch_size=` is computed (`sizes_of(scheme)`)" in _bucket_reason(result)
    assert "bucket_by_sequence_length(" in result.new_source.decode()


def test_a_batcher_other_modules_call_keeps_both_functions(tmp_path):
    other = "import examples\n\nbatches = examples.batch_examples({}, {})\n"
    results = _migrate(tmp_path, {"examples.py": _text(BUCKETED), "other.py": other})
    reason = _bucket_reason(results["examples.py"])
    assert "batch_examples() is called from other modules too" in reason and "other.py:3" in reason
    assert "bucket_by_sequence_length(" in results["examples.py"].new_source.decode()


def test_a_batcher_no_function_of_the_module_calls_says_so(tmp_path):
    text = _text(BUCKETED).replace("    return batch_examples(examples, scheme)\n", "    return examples, scheme\n")
    reason = _bucket_reason(_migrate(tmp_path, {"examples.py": text})["examples.py"])
    assert ("the tensors it batches are `examples`, a parameter of batch_examples(), which no function of this "
            "module calls") in reason


def test_the_scoped_reader_and_batcher_keep_their_scopes_and_the_loop_moves_with_its_start(tmp_path):
    result = _migrate(tmp_path, {"examples.py": _text(SCOPED)})["examples.py"]
    output = result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics)
    assert "    with tf.name_scope('bucket_examples'):\n        def prepare_record(examples):\n" in output
    assert "            longest = 0\n            for tensor in examples.values():\n" in output
    # the reader's code that is not per-record runs before its map function
    assert ("        items = sorted(handlers)\n\n        def parse_record(serialized):\n"
            "            decoded = decoder.decode(serialized, items=items)\n") in output


def test_an_accumulation_start_read_elsewhere_leaves_the_bucketing(tmp_path):
    text = _text(SCOPED).replace("        longest = 0\n", "        longest = 0\n        tf.logging.info(longest)\n")
    reason = _bucket_reason(_migrate(tmp_path, {"examples.py": text})["examples.py"])
    assert "`longest` is bound both by per-record code of bucket_examples() and by code that is not" in reason


def test_a_loop_that_breaks_leaves_the_bucketing(tmp_path):
    text = _text(SCOPED).replace("            longest = tf.maximum(longest, size)\n",
                                 "            longest = tf.maximum(longest, size)\n            break\n")
    reason = _bucket_reason(_migrate(tmp_path, {"examples.py": text})["examples.py"])
    assert "the per-record code of bucket_examples() holds a statement other than an assignment" in reason


def test_reader_code_rebinding_what_earlier_per_record_code_read_leaves_the_bucketing(tmp_path):
    text = _text(SCOPED).replace(
        "        return {name: tensor for (name, tensor) in zip(items, decoded)}\n",
        "        items = list(reversed(items))\n        return {name: tensor for (name, tensor) in zip(items, decoded)}\n")
    reason = _bucket_reason(_migrate(tmp_path, {"examples.py": text})["examples.py"])
    assert "decoded_examples() uses `items` after per-record code that reads it" in reason


def test_a_batcher_on_another_device_than_the_cpu_is_not_entered(tmp_path):
    text = _text(SCOPED).replace("    with tf.name_scope('bucket_examples'):", "    with tf.device('/gpu:0'):")
    result = _migrate(tmp_path, {"examples.py": text})["examples.py"]
    assert "bucket_by_sequence_length(" in result.new_source.decode()
    text = _text(SCOPED).replace("    with tf.name_scope('bucket_examples'):", "    with tf.device('/cpu:0'):")
    result = _migrate(tmp_path, {"examples.py": text})["examples.py"]
    assert all(d.fixed for d in result.diagnostics)


def test_a_bucketing_call_without_its_tensors_is_refused_not_a_crash(tmp_path):
    # The property harvester's mutant (seed 40): the call's first arguments gone, its tensors unbound.
    text = _text(SCOPED).replace("            longest,\n            examples,\n            batch_sizes,\n", "")
    result = _migrate(tmp_path, {"examples.py": text})["examples.py"]
    assert result.error is None
    assert "its call passes no tensors to batch" in _bucket_reason(result)
