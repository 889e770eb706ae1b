"""Per-record code that makes a summary or a collection entry stays with its chain: in the map
function it would be made in the function's graph, and the program's merge_all() and
get_collection() would lose it without an error (recognise._check_graph_only_calls)."""
import pytest

from qmigrate import api

PIPELINE = '''import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, value = reader.read(queue)
    image = tf.decode_raw(value, tf.uint8)
    %s
    return tf.train.batch([image], batch_size)
'''


@pytest.mark.parametrize("statement,spelled", [
    ("tf.summary.histogram('pixels', image)", "tf.summary.histogram"),
    ("tf.histogram_summary('pixels', image)", "tf.histogram_summary"),
    ("tf.add_to_collection('images', image)", "tf.add_to_collection"),
])
def test_a_summary_or_collection_entry_keeps_the_chain(tmp_path, statement, spelled):
    path = tmp_path / "inputs.py"
    path.write_text(PIPELINE % statement)
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
    batch = next(d for d in result.diagnostics if d.code == "QM301")
    assert "calls `%s` (line 9)" % spelled in batch.message


def test_other_per_record_code_still_moves(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(PIPELINE % "image = tf.reshape(image, [-1])")
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed



# Per-record code calling a function of the block that a decorator of the program's own wraps: the
# decorator may turn it into a queue stage (a queue, placeholders and a runner thread per call, as
# sugartensor-style `producer_func` decorators do), which a map function cannot run.
DECORATED = '''import functools

import numpy as np
import tensorflow as tf
from stages import python_stage


def inputs(rows, labels, batch_size):
    row, label = tf.train.slice_input_producer([tf.constant(rows), tf.constant(labels)], shuffle=False)

    @python_stage
    def decode(values):
        return [np.asarray(values[0], np.float32) * 2, values[1]]

    doubled, label = decode(inputs=[row, label], dtypes=[tf.float32, tf.int32], capacity=8, num_threads=2)
    return tf.train.batch([doubled, label], batch_size, shapes=[[3], []])
'''

# The same with a function of tensors, under each decorator.
PLAIN = '''import functools

import tensorflow as tf
from stages import python_stage


def inputs(rows, labels, batch_size):
    row, label = tf.train.slice_input_producer([tf.constant(rows), tf.constant(labels)], shuffle=False)

    @%s
    def double(value):
        return tf.cast(value, tf.float32) * 2

    doubled = double(row)
    return tf.train.batch([doubled, label], batch_size)
'''


def test_a_call_of_a_function_a_decorator_of_the_program_wraps_keeps_the_chain(tmp_path):
    for text, call, line in ((DECORATED, "decode", 15), (PLAIN % "python_stage", "double", 14)):
        path = tmp_path / "inputs.py"
        path.write_text(text)
        result, = api.migrate([str(path)], jobs=1)
        assert not result.changed
        batch = next(d for d in result.diagnostics if d.code == "QM301")
        assert "calls `%s()` (line %d), which `@python_stage` decorates" % (call, line) in batch.message


@pytest.mark.parametrize("decorator", ["functools.lru_cache(maxsize=None)", "tf.contrib.framework.add_arg_scope"])
def test_functools_and_tensorflow_decorators_do_not_keep_it(tmp_path, decorator):
    path = tmp_path / "inputs.py"
    path.write_text(PLAIN % decorator)
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed


# The same function defined in a module beside this one, reached by each kind of import.
STAGES = '''import functools

import tensorflow as tf


def python_stage(function):
    return function


@python_stage
def staged(value):
    return tf.cast(value, tf.float32) * 2


@functools.lru_cache(maxsize=None)
def cached(value):
    return tf.cast(value, tf.float32) * 2


@tf.contrib.framework.add_arg_scope
def scoped(value):
    return tf.cast(value, tf.float32) * 2


def plain(value):
    return tf.cast(value, tf.float32) * 2
'''

IMPORTING = '''import tensorflow as tf
%s


def inputs(rows, labels, batch_size):
    row, label = tf.train.slice_input_producer([tf.constant(rows), tf.constant(labels)], shuffle=False)
    doubled = %s(row)
    return tf.train.batch([doubled, label], batch_size)
'''


@pytest.mark.parametrize("imports,call", [
    ("from stages import staged", "staged"), ("from stages import *", "staged"),
    ("import stages", "stages.staged"),
])
def test_an_imported_function_a_decorator_of_the_program_wraps_keeps_the_chain(tmp_path, imports, call):
    (tmp_path / "stages.py").write_text(STAGES)
    path = tmp_path / "inputs.py"
    path.write_text(IMPORTING % (imports, call))
    result = {r.path: r for r in api.migrate([str(tmp_path)], jobs=1)}[str(path)]
    assert not result.changed
    batch = next(d for d in result.diagnostics if d.code == "QM301")
    assert "calls `%s()` (line 7), which `@python_stage` decorates in stages.py" % call in batch.message


@pytest.mark.parametrize("name", ["cached", "scoped", "plain"])
def test_imported_functions_that_stay_plain_still_move(tmp_path, name):
    (tmp_path / "stages.py").write_text(STAGES)
    for imports, call in (("from stages import %s" % name, name), ("from stages import *", name),
                          ("import stages", "stages." + name)):
        path = tmp_path / "inputs.py"
        path.write_text(IMPORTING % (imports, call))
        result = {r.path: r for r in api.migrate([str(tmp_path)], jobs=1)}[str(path)]
        assert result.changed, (imports, [d.message for d in result.remaining])


# Per-record code calling a function that makes a summary, a collection entry or a variable: in
# itself, through another function of its module, or in a module beside it (graph_state).
HELPERS = '''import tensorflow as tf


def log_image(image):
    tf.summary.image('example', tf.expand_dims(image, 0))
    return image


def distort(image):
    image = tf.image.random_flip_left_right(image)
    return log_image(image)


def scale(image):
    step = tf.train.get_or_create_global_step()
    return image * tf.cast(step, tf.float32)


def centre(image):
    return image - tf.reduce_mean(image)
'''

CALLING = '''import tensorflow as tf
%s


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    reader = tf.WholeFileReader()
    _, value = reader.read(queue)
    image = tf.image.resize_images(tf.image.decode_png(value), [8, 8])
    image = %s(image)
    return tf.train.batch([image], batch_size)
'''


@pytest.mark.parametrize("function,made,where,what", [
    ("log_image", "tf.summary.image", "log_image", "a summary or collection entry"),
    ("distort", "tf.summary.image", "log_image", "a summary or collection entry"),
    ("scale", "tf.train.get_or_create_global_step", "scale", "a variable"),
])
def test_a_function_that_makes_graph_state_keeps_the_chain(tmp_path, function, made, where, what):
    for imports, call, beside in (("", function, ""), ("import helpers", "helpers." + function, " of helpers.py")):
        (tmp_path / "helpers.py").write_text(HELPERS)
        path = tmp_path / "inputs.py"
        path.write_text(CALLING % (imports, call) if imports else CALLING % ("", call) + "\n\n" + HELPERS)
        result = {r.path: r for r in api.migrate([str(tmp_path)], jobs=1)}[str(path)]
        assert not result.changed
        batch = next(d for d in result.diagnostics if d.code == "QM301")
        assert "calls `%s()` (line 10), and `%s` (line " % (call, made) in batch.message
        assert "%s, in %s()) makes %s" % (beside, where, what) in batch.message


def test_a_function_without_graph_state_still_moves(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPERS)
    path = tmp_path / "inputs.py"
    path.write_text(CALLING % ("import helpers", "helpers.centre"))
    result = {r.path: r for r in api.migrate([str(tmp_path)], jobs=1)}[str(path)]
    assert result.changed


# The same through a method of the class that the batching method calls on `self`.
METHOD = '''import tensorflow as tf


class Inputs(object):
    def __init__(self, files):
        self.files = files

    def _augment(self, image):
        %s
        return tf.image.random_flip_left_right(image)

    def batches(self, batch_size):
        queue = tf.train.string_input_producer(self.files)
        _, value = tf.WholeFileReader().read(queue)
        image = tf.image.resize_images(tf.image.decode_png(value, channels=3), [8, 8])
        image = self._augment(image)
        return tf.train.batch([image], batch_size)
'''


def test_a_method_that_makes_a_summary_keeps_the_chain(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(METHOD % "tf.summary.image('image', tf.expand_dims(image, 0))")
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
    batch = next(d for d in result.diagnostics if d.code == "QM301")
    assert "calls `self._augment()` (line 16), and `tf.summary.image` (line 9, in self._augment()) makes a " \
           "summary or collection entry" in batch.message


def test_a_method_without_one_still_moves(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(METHOD % "image = tf.identity(image)")
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed and not result.remaining
