"""A slim Dataset that only its migrated provider read goes with it (qmigrate/dead_datasets.py);
wherever the result could mean something else, it stays as it was."""
import textwrap

from qmigrate import api

_HEAD = '''\
import tensorflow as tf

slim = tf.contrib.slim
SOURCES = 'data/*.tfrecord'


def inputs(files, batch_size):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'id': tf.FixedLenFeature([], tf.int64)}, {'id': slim.tfexample_decoder.Tensor('id')})
'''
_TAIL = '''\
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False, num_epochs=1)
    example_id, = provider.get(['id'])
    return tf.train.batch([example_id], batch_size=batch_size)
'''
_DATASET = "    dataset = slim.dataset.Dataset(%s, tf.TFRecordReader, decoder, %s, {})\n"


def _migrated(tmp_path, middle, sources="files", size="100"):
    path = tmp_path / "inputs.py"
    path.write_text(_HEAD + textwrap.indent(textwrap.dedent(middle), "    ") + _DATASET % (sources, size) + _TAIL)
    [result] = api.migrate([str(path)])
    assert result.changed and all(d.fixed or d.code == "QM110" for d in result.diagnostics)
    return result.new_source.decode()


def _gone(output):
    return "slim.dataset.Dataset(" not in output and "dataset.decoder" not in output


def test_a_dataset_only_the_provider_read_goes_and_its_values_are_read_directly(tmp_path):
    output = _migrated(tmp_path, "")
    assert _gone(output)
    assert "get_data_files(files)" in output
    assert "example_id, = decoder.decode(serialized, ['id'])" in output


def test_a_dataset_read_for_anything_else_stays(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(_HEAD + _DATASET % ("files", "100") + "    steps = dataset.num_samples // batch_size\n" + _TAIL)
    [result] = api.migrate([str(path)])
    output = result.new_source.decode()
    assert "dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, 100, {})" in output
    assert "get_data_files(dataset.data_sources)" in output


def test_a_dataset_with_a_call_among_its_arguments_stays(tmp_path):
    # The call could have effects (here it reads every file): removing the line would lose them.
    output = _migrated(tmp_path, "", size="sum(1 for f in files for _ in tf.python_io.tf_record_iterator(f))")
    assert "slim.dataset.Dataset(files" in output and "dataset.decoder.decode" in output


def test_sources_bound_again_after_the_dataset_keep_it(tmp_path):
    # `files` written in would read the new list, where the Dataset holds the old one.
    path = tmp_path / "inputs.py"
    rebind = "    files = files[:1]\n"
    path.write_text(_HEAD + _DATASET % ("files", "100") + rebind + _TAIL)
    [result] = api.migrate([str(path)])
    output = result.new_source.decode()
    assert "get_data_files(dataset.data_sources)" in output and "slim.dataset.Dataset(files" in output


def test_a_name_bound_again_in_a_nested_scope_keeps_the_dataset(tmp_path):
    # `files` bound in a comprehension of the function: written in the map function, it would
    # still be the parameter, but the rule does not look that closely.
    output = _migrated(tmp_path, "names = [files for files in ('a', 'b')]\n")
    assert "slim.dataset.Dataset(files" in output


def test_module_level_sources_keep_the_dataset(tmp_path):
    # Another function could bind the global again before the map function reads it.
    output = _migrated(tmp_path, "", sources="SOURCES")
    assert "slim.dataset.Dataset(SOURCES" in output and "get_data_files(dataset.data_sources)" in output


def test_a_string_literal_for_the_sources_is_written_in(tmp_path):
    output = _migrated(tmp_path, "", sources="'data/*.tfrecord'")
    assert _gone(output) and "get_data_files('data/*.tfrecord')" in output


def test_a_dataset_made_in_a_loop_stays(tmp_path):
    path = tmp_path / "inputs.py"
    loop = "    for _ in range(1):\n        count = 100\n    " + _DATASET % ("files", "count")
    path.write_text(_HEAD + loop + _TAIL)
    [result] = api.migrate([str(path)])
    assert result.changed and "slim.dataset.Dataset(files" in result.new_source.decode()


def test_a_dataset_sharing_its_line_stays(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(_HEAD + (_DATASET % ("files", "100")).rstrip("\n") + "; count = 100\n" + _TAIL)
    [result] = api.migrate([str(path)])
    assert "slim.dataset.Dataset(files" in result.new_source.decode()


def test_a_local_made_only_for_the_dataset_goes_and_one_read_elsewhere_stays(tmp_path):
    path = tmp_path / "inputs.py"
    made = "    described = {'id': 'The id.'}\n    size = 100\n"
    text = _HEAD + made + "    dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, size, described)\n"
    text += "    tf.logging.info('%d examples', size)\n" + _TAIL
    path.write_text(text)
    [result] = api.migrate([str(path)])
    output = result.new_source.decode()
    assert _gone(output)
    assert "described" not in output
    assert "    size = 100\n" in output


def test_comments_right_above_the_dataset_go_and_a_section_heading_stays(tmp_path):
    output = _migrated(tmp_path, "# Reading.\n\n# The dataset for slim.\n")
    assert _gone(output)
    assert "# The dataset for slim." not in output
    assert "# Reading.\n" in output


def test_two_datasets_of_one_function_both_go(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text('''\
import tensorflow as tf

slim = tf.contrib.slim


def inputs(train_files, eval_files, batch_size):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'id': tf.FixedLenFeature([], tf.int64)}, {'id': slim.tfexample_decoder.Tensor('id')})
    train_set = slim.dataset.Dataset(train_files, tf.TFRecordReader, decoder, 100, {})
    eval_set = slim.dataset.Dataset(eval_files, tf.TFRecordReader, decoder, 10, {})
    train_provider = slim.dataset_data_provider.DatasetDataProvider(train_set, shuffle=False, num_epochs=1)
    train_id, = train_provider.get(['id'])
    train_batch = tf.train.batch([train_id], batch_size=batch_size)
    eval_provider = slim.dataset_data_provider.DatasetDataProvider(eval_set, shuffle=False, num_epochs=1)
    eval_id, = eval_provider.get(['id'])
    eval_batch = tf.train.batch([eval_id], batch_size=batch_size)
    return train_batch, eval_batch
''')
    [result] = api.migrate([str(path)])
    output = result.new_source.decode()
    assert _gone(output) and "_set" not in output
    assert "get_data_files(train_files)" in output and "get_data_files(eval_files)" in output
