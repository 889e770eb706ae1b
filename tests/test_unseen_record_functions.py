"""Per-record code that calls a function made at run time (a factory's result, a parameter) is
migrated with a note (QM909): qmigrate cannot read that function, and a summary, collection
entry or variable it makes would leave the program's graph, or fail, in the map function (found
outside the corpus: slim's preprocessing_factory functions make image summaries)."""
import pytest

from qmigrate import api
from qmigrate.diagnostics import Status

PIPELINE = '''import numpy as np
import tensorflow as tf
from preprocessing import factory


def centre(image):
    return image - tf.reduce_mean(image)


def inputs(files, batch_size, augment):
    preprocess = factory.get('inception', training=True)
    queue = tf.train.string_input_producer(files)
    _, value = tf.WholeFileReader().read(queue)
    image = tf.image.resize_images(tf.image.decode_png(value, channels=3), [32, 32])
    image = %s
    return tf.train.batch([image], batch_size)
'''


@pytest.mark.parametrize("call,made", [
    ("preprocess(image)", "`preprocess()`, made by `factory.get(...)` (line 11)"),
    ("augment(image)", "`augment()`, a parameter of `inputs()`"),
])
def test_a_function_made_at_run_time_is_noted(tmp_path, call, made):
    path = tmp_path / "inputs.py"
    path.write_text(PIPELINE % call)
    result, = api.migrate([str(path)], jobs=1)
    assert result.status is Status.MIGRATED and result.changed
    note, = [d for d in result.diagnostics if d.code == "QM909"]
    assert note.note and note.line == 15
    assert "calls a function made at run time (%s)" % made in note.message
    assert call in result.new_source.decode()  # moved into the map function, as before


@pytest.mark.parametrize("call", ["centre(image)", "tf.image.per_image_standardization(image)",
                                  "np.float32(1) * image", "abs(image)"])
def test_functions_qmigrate_reads_or_knows_are_not(tmp_path, call):
    path = tmp_path / "inputs.py"
    path.write_text(PIPELINE % call)
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed and not [d for d in result.diagnostics if d.code == "QM909"]
