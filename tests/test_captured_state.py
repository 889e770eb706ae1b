"""What the map function of a one-shot iterator cannot hold, seen beyond the block of the chain.

Two wrong rewrites found on fresh repositories (a segmentation model's inputs, a capsule
network's smallNORB reader): per-record code that makes a variable (`beta = tf.get_variable(...)`
then `image + beta`) was moved into the map function, and a pipeline inside `if labels:` captured
`image`, the record of another reader chain bound before the `if`. Under TF 1.8 both fail when the
iterator is made ("Cannot capture a stateful node ... by value"); the queue read the program's
variable, and batched each image with its own label. Both now stay, with the reason; what the
enclosing block makes that a map function can capture (a constant, a Python value) still moves.
"""
import textwrap

import pytest

from qmigrate import api

READ = """\
    import tensorflow as tf


    def inputs(files, batch_size, train):
        %s
        if train:
            queue = tf.train.string_input_producer(files)
            reader = tf.TFRecordReader()
            _, value = reader.read(queue)
            x = tf.string_to_number(value) %s
            return tf.train.batch([x], batch_size=batch_size)
        return None
    """


def _migrate(tmp_path, text, name="inputs.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    [result] = api.migrate([str(path)])
    return result


def _batch_reason(result):
    return next(d.message for d in result.remaining if d.code.startswith("QM30"))


@pytest.mark.parametrize("outer, use, said", [
    ("noise = tf.random_uniform([])", "+ noise",
     "reads `noise`, made at line 5, outside this block, from a stateful op (random, variable, placeholder or "
     "py_func): the map function would capture it by value, which a one-shot iterator cannot (TF 1.x fails when "
     "the iterator is made); move that statement into the per-record code"),
    ("scale = tf.Variable(1.0)", "* scale",
     "reads `scale`, made at line 5, outside this block, from a stateful op"),
    ("scale = tf.Variable(1.0)\n        doubled = scale * 2", "* doubled",  # derived from one
     "reads `doubled`, made at line 6, outside this block, from a stateful op"),
    ("step = tf.train.get_or_create_global_step()", "* tf.cast(step, tf.float32)",
     "read it after the batching, on the batch, instead"),
])
def test_state_made_in_an_enclosing_block_keeps_the_pipeline(tmp_path, outer, use, said):
    result = _migrate(tmp_path, READ % (outer, use))
    assert not result.changed
    assert said in _batch_reason(result)


@pytest.mark.parametrize("outer, use", [
    ("offset = tf.constant(1.0)", "+ offset"),
    ("offset = 1.0", "+ offset"),
    ("offset = float(len(files))", "+ offset"),
])
def test_what_a_map_function_can_capture_still_moves(tmp_path, outer, use):
    result = _migrate(tmp_path, READ % (outer, use))
    assert result.changed and not result.remaining
    assert "def parse_record(value):" in result.new_source.decode()


def test_a_record_of_another_chain_bound_before_the_block_keeps_the_pipeline(tmp_path):
    result = _migrate(tmp_path, """\
        import tensorflow as tf


        def read_one(filename):
            queue = tf.train.string_input_producer([filename])
            reader = tf.TFRecordReader()
            _, value = reader.read(queue)
            return tf.string_to_number(value)


        def inputs(batch_size, image_file, label_file):
            image = read_one(image_file)
            if label_file:
                label = read_one(label_file)
                return tf.train.shuffle_batch([image, label], batch_size=batch_size, capacity=200,
                                              min_after_dequeue=100)
            return image
        """)
    assert "def parse_record" not in (result.new_source or b"").decode()
    assert "reads `image`, which line 12, outside this block, takes from another queue, reader or iterator, not " \
           "zipped with this chain" in _batch_reason(result)


@pytest.mark.parametrize("made", ["tf.get_variable('beta', [image.get_shape()[-1]], initializer=tf.zeros_initializer())",
                                  "tf.Variable(tf.zeros_like(image))"])
def test_a_variable_made_by_the_per_record_code_keeps_the_pipeline(tmp_path, made):
    result = _migrate(tmp_path, """\
        import tensorflow as tf


        def inputs(files, batch_size):
            queue = tf.train.string_input_producer(files)
            reader = tf.TFRecordReader()
            _, value = reader.read(queue)
            image = tf.reshape(tf.string_to_number(value), [1])
            beta = %s
            image = image + beta
            return tf.train.batch([image], batch_size=batch_size)
        """ % made)
    assert not result.changed
    assert "which makes a variable: in the map function it would be made in the function's graph, which a " \
           "one-shot iterator cannot capture" in _batch_reason(result)


def test_a_variable_read_by_the_per_record_code_is_read_on_the_batch(tmp_path):
    # Made outside the per-record code in the chain's own block: moving it in would make it in
    # the map function, which fails too; the reason says to read it on the batch.
    result = _migrate(tmp_path, """\
        import tensorflow as tf


        def inputs(files, batch_size):
            queue = tf.train.string_input_producer(files)
            reader = tf.TFRecordReader()
            _, value = reader.read(queue)
            scale = tf.Variable(1.0)
            x = tf.string_to_number(value) * scale
            return tf.train.batch([x], batch_size=batch_size)
        """)
    assert not result.changed
    reason = _batch_reason(result)
    assert "reads `scale`, made at line 8 from a stateful op" in reason
    assert "read it after the batching, on the batch, instead" in reason and "move that statement" not in reason
