"""Data preloaded into a variable and sliced by a producer (TensorFlow's own
`fully_connected_preloaded_var.py`, found copied in a fresh repository): the producer's tensors
would become the dataset's, and a one-shot iterator cannot capture a variable (TF 1.8:
"Failed to create a one-shot iterator ... does not support datasets that capture stateful
objects, such as a `Variable`"; measured on that file's migration, which qmigrate used to
write). The pipeline stays, with that reason; preloaded constants still migrate."""
from qmigrate import api

PRELOADED = '''import tensorflow as tf


def inputs(data, labels, batch_size, num_epochs):
    images_initializer = tf.placeholder(tf.float32, data.shape)
    labels_initializer = tf.placeholder(tf.int32, labels.shape)
    input_images = %s
    input_labels = tf.Variable(labels_initializer, trainable=False, collections=[])
    image, label = tf.train.slice_input_producer([input_images, input_labels], num_epochs=num_epochs)
    label = tf.cast(label, tf.int32)
    images, labels = tf.train.batch([image, label], batch_size=batch_size)
    return images, labels
'''


def _migrate(tmp_path, images):
    path = tmp_path / "preloaded.py"
    path.write_text(PRELOADED % images)
    [result] = api.migrate([str(path)])
    return result


def test_a_producer_slicing_variables_stays_with_the_reason(tmp_path):
    result = _migrate(tmp_path, "tf.Variable(images_initializer, trainable=False, collections=[])")
    assert not result.changed
    producer = next(d for d in result.remaining if d.code == "QM102")
    assert producer.line == 9
    assert "the producer's arguments read `input_images`, made at line 7 from a stateful op" in producer.message
    assert "cannot capture it" in producer.message


def test_a_producer_slicing_constants_migrates(tmp_path):
    # the labels stay a variable in the template: make both constants
    path = tmp_path / "preloaded.py"
    path.write_text((PRELOADED % "tf.constant(data)").replace(
        "tf.Variable(labels_initializer, trainable=False, collections=[])", "tf.constant(labels)"))
    [result] = api.migrate([str(path)])
    assert result.changed and not result.remaining
    assert "tf.data.Dataset.from_tensor_slices((input_images, input_labels))" in result.new_source.decode()


HELD = '''import tensorflow as tf


class Preloaded(object):
    def __init__(self, data, labels):
        self.images_initializer = tf.placeholder(tf.float32, data.shape)
        self.images = %s
        self.labels = tf.constant(labels)

    def batches(self, batch_size):
        image, label = tf.train.slice_input_producer([self.images, self.labels], num_epochs=1)
        return tf.train.batch([image, label], batch_size=batch_size)
'''


def test_a_producer_slicing_a_variable_held_on_the_object_stays(tmp_path):
    path = tmp_path / "held.py"
    path.write_text(HELD % "tf.Variable(self.images_initializer, trainable=False, collections=[])")
    [result] = api.migrate([str(path)])
    assert not result.changed
    producer = next(d for d in result.remaining if d.code == "QM102")
    assert ("the producer's arguments read `self.images`, bound at line 7 to a tensor of a stateful op"
            in producer.message)


def test_a_producer_slicing_constants_held_on_the_object_migrates(tmp_path):
    path = tmp_path / "held.py"
    path.write_text(HELD % "tf.constant(data)")
    [result] = api.migrate([str(path)])
    assert result.changed and not result.remaining
    assert "from_tensor_slices((self.images, self.labels))" in result.new_source.decode()
