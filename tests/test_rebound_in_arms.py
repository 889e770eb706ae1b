"""Per-record names the batching rebinds (`feats, labels = tf.train.batch([feats, labels], ...)`)
inside an arm of an `if` of the function's body: later loads in that arm read the batch, as they
do in the function's own body (found outside the corpus, Kyubyong's cross_vc: the arm was refused
with "the per-record tensor `feats` is also used outside the record path")."""
from qmigrate import api

ARM = '''import tensorflow as tf


def get_batch(paths, mode, batch_size=4):
{before}    if mode == 'train':
        path, = tf.train.slice_input_producer([paths], shuffle=True)
        feats = tf.string_to_number(path)
        labels = tf.size(path)
        feats, labels = tf.train.batch([feats, labels], batch_size=batch_size)
        return feats, labels
{after}'''


def _migrated(tmp_path, before="", after="", indent=""):
    text = ARM.format(before=before, after=after)
    if indent:
        text = text.replace("\n    if mode", "\n    for _ in range(1):\n        if mode").replace(
            "\n        ", "\n" + indent + "        ").replace("\n" + indent + "        if mode", "\n        if mode")
    path = tmp_path / "inputs.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    return result


def test_the_batch_read_after_the_rebinding_in_the_arm_migrates(tmp_path):
    result = _migrated(tmp_path)
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    new = result.new_source.decode()
    assert "feats, labels = dataset.make_one_shot_iterator().get_next()\n        return feats, labels\n" in new


def test_a_load_after_the_if_keeps_the_file(tmp_path):
    result = _migrated(tmp_path, after="    print(feats)\n")
    assert not result.changed
    assert any("the per-record tensor `feats` is also used outside the record path" in d.message
               for d in result.remaining)


def test_an_arm_inside_a_loop_keeps_the_file(tmp_path):
    result = _migrated(tmp_path, indent="    ")
    assert "for _ in range(1):\n        if mode == 'train':\n            path, =" in result.old_source.decode()
    assert not result.changed
