"""A module with a slim provider and nothing that batches (engine._may_hold_pipeline): its records,
read one a run, are followed as a batched provider's are; what stops them is said, not that the
provider 'is not read by get() in the block that batches'."""
from qmigrate import api

HEAD = '''import tensorflow as tf

slim = tf.contrib.slim


def first_example(files):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {'x': tf.FixedLenFeature([4], tf.float32)}, {'x': slim.tfexample_decoder.Tensor('x')})
    dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, 10, {})
'''
READ = '''    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, num_readers=1, shuffle=False)
    [x] = provider.get(['x'])
    with tf.Session() as sess:
        print(sess.run(x * 2.0))
'''


def _run(tmp_path, text):
    path = tmp_path / "show.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


def test_a_provider_read_in_its_own_block_becomes_a_one_shot_iterator(tmp_path):
    result = _run(tmp_path, HEAD + READ)
    output = result.new_source.decode()
    assert all(d.fixed or d.code == "QM110" for d in result.diagnostics)
    assert "serialized = dataset_2.make_one_shot_iterator().get_next()" in output
    assert "[x] = decoder.decode(serialized, ['x'])" in output and "print(sess.run(x * 2.0))" in output


def test_one_it_cannot_follow_says_why(tmp_path):
    text = HEAD.replace("def first_example(files):", "def first_example(files, dataset):").replace(
        "    dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, 10, {})\n", "") + READ
    result = _run(tmp_path, text)
    assert not result.changed
    [message] = [d.message for d in result.diagnostics if d.code == "QM106"]
    assert "is a parameter of first_example()" in message and "not assigned to a name" not in message
