"""The map function of an if/else whose arms batch is made before the if/else and takes the first
arm's thread count: a name the arm binds is not bound there yet (a NameError when the input is
built, found outside the corpus). A name bound once in the arm to a number is written in as that
number; anything else keeps the pipeline as it is, saying why."""
import pytest

from qmigrate import api

SOURCE = '''import tensorflow as tf


def inputs(files, if_random, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    image = tf.decode_raw(serialized, tf.uint8)
    if if_random:
        %s
        image_batch = tf.train.shuffle_batch([image], batch_size=batch_size, num_threads=threads,
                                             capacity=100, min_after_dequeue=50)
    else:
        %s
        image_batch = tf.train.batch([image], batch_size=batch_size, num_threads=1)
    return image_batch
'''


def _migrated(tmp_path, first, second="pass"):
    path = tmp_path / "inputs.py"
    path.write_text(SOURCE % (first, second))
    [result] = api.migrate([str(path)])
    return result


def test_a_number_the_arm_binds_is_written_into_the_map(tmp_path):
    result = _migrated(tmp_path, "threads = 4")
    assert result.changed and all(d.fixed for d in result.diagnostics)
    assert "dataset.map(parse_record, num_parallel_calls=4)" in result.new_source.decode()


@pytest.mark.parametrize("first,second", [
    ("threads = int(4)", "pass"),  # not a number as written
    ("threads = 4", "threads = 2"),  # bound in both arms
    ("threads = 4; threads += 1", "pass"),  # bound twice in the arm
])
def test_any_other_binding_in_an_arm_keeps_the_pipeline(tmp_path, first, second):
    result = _migrated(tmp_path, first, second)
    assert not result.changed
    messages = [d.message for d in result.diagnostics if d.code == "QM302"]
    assert messages and "arm binds `threads`, which its thread count reads" in messages[0]
