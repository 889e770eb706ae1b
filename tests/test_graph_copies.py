"""Programs that copy their graph with Edward keep their queue pipelines (graph_copies.py): ed.copy
shares a queue's dequeue between the model and its copy, but copies a dataset's iterator."""
from qmigrate import api
from qmigrate.engine import Options

INPUTS = '''import tensorflow as tf


def batches(xs, ys, batch_size):
    x, y = tf.train.slice_input_producer([xs, ys])
    return tf.train.shuffle_batch([x, y], batch_size=batch_size, capacity=200, min_after_dequeue=100)
'''

FIT = '''import edward as ed
import tensorflow as tf
from edward.models import Normal

import inputs


def main(xs, ys):
    x, y = inputs.batches(xs, ys, 20)
    w = Normal(loc=0.0, scale=10.0)
    inference = ed.KLqp({w: Normal(loc=tf.Variable(0.0), scale=1.0)}, data={Normal(loc=x * w, scale=0.05): y})
    inference.run(n_iter=100)
'''

ALONE = '''import tensorflow as tf


def batches(xs, ys, batch_size):
    x, y = tf.train.slice_input_producer([xs, ys])
    return tf.train.batch([x, y], batch_size=batch_size)
'''


def _run(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {r.path.rsplit("/", 1)[-1]: r for r in api.migrate([str(tmp_path)], Options())}


def test_a_pipeline_beside_edward_stays_with_the_reason(tmp_path):
    text = FIT.replace("import inputs\n", INPUTS.split("\n", 1)[1]).replace("inputs.batches", "batches")
    result = _run(tmp_path, {"fit.py": text})["fit.py"]
    assert not result.changed
    assert result.remaining and all("the module imports edward: ed.copy" in d.message for d in result.remaining)


def test_a_module_an_edward_program_imports_keeps_its_pipelines(tmp_path):
    results = _run(tmp_path, {"inputs.py": INPUTS, "fit.py": FIT, "alone.py": ALONE})
    assert not results["inputs.py"].changed
    assert all("fit.py, which imports edward, imports this module" in d.message
               for d in results["inputs.py"].remaining)
    assert results["alone.py"].changed and not results["alone.py"].remaining  # no edward program imports it


def test_without_edward_the_same_modules_migrate(tmp_path):
    results = _run(tmp_path, {"inputs.py": INPUTS, "fit.py": FIT.replace("import edward as ed\n", "import ed\n")
                              .replace("from edward.models import Normal", "from models import Normal")})
    assert results["inputs.py"].changed and not results["inputs.py"].remaining
