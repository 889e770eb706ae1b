"""A reader helper kept as it was for a caller that stays (here: one that takes single records,
unbatched) while a batched caller's pipeline calls its migrated copy: when the kept original's own
read is then rewritten in place (a dataset of its records), its calls are reported fixed, not
"kept as it was" (the report said so of code no longer there, and a --check run failed on it)."""
from qmigrate import api

SOURCE = '''import tensorflow as tf


def load_example(path, training=None):
    files = tf.train.string_input_producer([path])
    _, serialized = tf.TFRecordReader().read(files)
    parsed = tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})
    example = tf.cast(parsed['id'], tf.int32)
    if training:
        example = example * 1
    return example


def build(train_path, test_path, batch_size):
    train_example = load_example(train_path, True)
    test_example = load_example(test_path, False)
    batch = tf.train.shuffle_batch([train_example], batch_size=batch_size, capacity=64, min_after_dequeue=32)
    return batch, test_example
'''


def test_the_kept_originals_rewritten_read_is_reported_fixed(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(SOURCE)
    result, = api.migrate([str(path)], jobs=1)
    new = result.new_source.decode()
    assert "tf.train." not in new and "Reader" not in new
    assert "def load_example(path, training=None):" in new  # the unbatched caller's function, same signature
    assert "test_example = load_example(test_path, False)" in new
    assert {d.code: d.fixed for d in result.diagnostics} == {"QM101": True, "QM201": True, "QM302": True}
