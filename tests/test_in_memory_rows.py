"""A batching of in-memory arrays with enqueue_many=True (every run of its enqueue op adds all their
rows again) is the slice producer of their rows, and migrates like one (in_memory_rows); where the
arrays are not provably made once in memory, it says so, with the tf.data form to write: it said
"come in as a parameter ... qmigrate follows a batching helper into its callers" or "pipelines
split across functions" (found on a repository outside the corpus). Batched tensors that are not
provably arrays keep the other reasons (unlinked.Explainer._in_memory_rows)."""
import pytest

from qmigrate import api

IN_FUNCTION = '''import numpy as np
import tensorflow as tf


def train_input(images, labels, batch_size):
    return tf.train.shuffle_batch([tf.constant(images), tf.constant(labels)], batch_size=batch_size,
                                  capacity=50, min_after_dequeue=20, enqueue_many=True)
'''

AT_MODULE_LEVEL = '''import numpy as np
import tensorflow as tf

images = np.load('images.npy').reshape(-1, 28, 28)
labels = np.arange(10)
image_batch, label_batch = tf.train.batch([images, labels], batch_size=4, enqueue_many=True)
'''

# Bound on one line with another statement: not a plain `name = array` statement.
ON_ONE_LINE = '''import numpy as np
import tensorflow as tf

images = np.load('images.npy').reshape(-1, 28, 28); labels = np.arange(10)
image_batch, label_batch = tf.train.batch([images, labels], batch_size=4, enqueue_many=True)
'''

# Run again by a loop: the second time round, `rows` is the first batch, not the array.
IN_A_LOOP = '''import numpy as np
import tensorflow as tf


def train_input(batch_size):
    rows = np.arange(40).reshape(20, 2)
    for _ in range(2):
        rows = tf.train.batch([rows], batch_size=batch_size, enqueue_many=True)
    return rows
'''

# Rebound by a function elsewhere, through `global`.
DECLARED_GLOBAL = '''import numpy as np
import tensorflow as tf

ROWS = np.arange(40).reshape(20, 2)


def reload(path):
    global ROWS
    ROWS = np.load(path)


def train_input(batch_size):
    return tf.train.batch([ROWS], batch_size=batch_size, enqueue_many=True)
'''

# Bound twice, to arrays both times: each binding is one qmigrate would have to choose between.
BOUND_TWICE = '''import numpy as np
import tensorflow as tf


def train_input(batch_size, small):
    rows = np.arange(40).reshape(20, 2)
    if small:
        rows = np.arange(8).reshape(4, 2)
    return tf.train.batch([rows], batch_size=batch_size, enqueue_many=True)
'''

FROM_A_TENSOR = '''import tensorflow as tf


def train_input(make_rows, batch_size):
    rows = make_rows()
    return tf.train.batch([rows], batch_size=batch_size, enqueue_many=True)
'''


def _migrated(tmp_path, text):
    path = tmp_path / "inputs.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    return result


def _batch_reason(tmp_path, text):
    result = _migrated(tmp_path, text)
    assert not result.changed
    return next(d.message for d in result.diagnostics if d.code in ("QM301", "QM302"))


@pytest.mark.parametrize("text,rows", [(IN_FUNCTION, "(tf.constant(images), tf.constant(labels))"),
                                       (AT_MODULE_LEVEL, "(images, labels)")])
def test_in_memory_arrays_migrate_as_their_rows(tmp_path, text, rows):
    result = _migrated(tmp_path, text)
    new = result.new_source.decode()
    assert "tf.data.Dataset.from_tensor_slices(%s)" % rows in new
    assert "enqueue_many" not in new and "slice_input_producer" not in new and "tf.train." not in new
    # Only the file's own batching is reported: not the slice producer it was read as.
    assert sorted((d.code, d.fixed) for d in result.diagnostics) == [
        ("QM302" if "shuffle" in text else "QM301", True)]
    compile(new, "inputs.py", "exec")


@pytest.mark.parametrize("text,spelled", [(ON_ONE_LINE, "[images, labels]"), (IN_A_LOOP, "[rows]"),
                                          (DECLARED_GLOBAL, "[ROWS]"), (BOUND_TWICE, "[rows]")])
def test_arrays_not_provably_made_once_say_so(tmp_path, text, spelled):
    reason = _batch_reason(tmp_path, text)
    assert "it batches the rows of in-memory arrays (`%s` with enqueue_many=True" % spelled in reason
    assert "tf.data.Dataset.from_tensor_slices" in reason


def test_other_tensors_keep_their_reasons(tmp_path):
    assert "in-memory arrays" not in _batch_reason(tmp_path, FROM_A_TENSOR)
