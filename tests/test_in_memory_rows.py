"""A batching of in-memory arrays with enqueue_many=True (every run of its enqueue op adds all their
rows again) says so, with the tf.data form to write: it said "come in as a parameter ... qmigrate
follows a batching helper into its callers" or "pipelines split across functions" (found on a
repository outside the corpus). Batched tensors that are not provably arrays keep the other
reasons (unlinked.Explainer._in_memory_rows)."""
from qmigrate import api

IN_FUNCTION = '''import numpy as np
import tensorflow as tf


def train_input(images, labels, batch_size):
    return tf.train.shuffle_batch([tf.constant(images), tf.constant(labels)], batch_size=batch_size,
                                  capacity=50, min_after_dequeue=20, enqueue_many=True)
'''

AT_MODULE_LEVEL = '''import numpy as np
import tensorflow as tf

images = np.load('images.npy').reshape(-1, 28, 28); labels = np.arange(10)
image_batch, label_batch = tf.train.batch([images, labels], batch_size=4, enqueue_many=True)
'''

FROM_A_TENSOR = '''import tensorflow as tf


def train_input(make_rows, batch_size):
    rows = make_rows()
    return tf.train.batch([rows], batch_size=batch_size, enqueue_many=True)
'''


def _batch_reason(tmp_path, text):
    path = tmp_path / "inputs.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
    return next(d.message for d in result.diagnostics if d.code in ("QM301", "QM302"))


def test_in_memory_arrays_batched_with_enqueue_many_say_so(tmp_path):
    for text, spelled in ((IN_FUNCTION, "[tf.constant(images), tf.constant(labels)]"),
                          (AT_MODULE_LEVEL, "[images, labels]")):
        reason = _batch_reason(tmp_path, text)
        assert "it batches the rows of in-memory arrays (`%s` with enqueue_many=True" % spelled in reason
        assert "tf.data.Dataset.from_tensor_slices" in reason


def test_other_tensors_keep_their_reasons(tmp_path):
    assert "in-memory arrays" not in _batch_reason(tmp_path, FROM_A_TENSOR)
