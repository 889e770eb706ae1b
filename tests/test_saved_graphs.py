"""A file that imports a saved graph (tf.train.import_meta_graph, a SavedModel's loader) starts the
queue runners saved with it: its queue runners stay, with that reason, whatever else the run
migrates (saved_graphs; api's _saved_graph_for). Measured under TF 1.8: the import restores the
QUEUE_RUNNERS collection, and without start_queue_runners the restored dequeue waits forever."""
import os
import subprocess
import textwrap

import pytest

from qmigrate import api, saved_graphs
from qmigrate.engine import Options
from tfenv import tf_python

INPUTS = '''\
import tensorflow as tf


def batches(files, batch_size):
    queue = tf.train.string_input_producer(files, shuffle=False)
    reader = tf.TFRecordReader()
    _, record = reader.read(queue)
    return tf.train.batch([record], batch_size)
'''

# Resumes a saved run: its input is the queue pipeline saved in the meta graph.
RESUME = '''\
import sys

import tensorflow as tf


def main(prefix):
    saver = tf.train.import_meta_graph(prefix + ".meta")
    batch = tf.get_collection("batch")[0]
    with tf.Session() as sess:
        saver.restore(sess, prefix)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        wait = tf.RunOptions(timeout_in_ms=30000)
        for _ in range(3):
            print(sorted(sess.run(batch, options=wait).tolist()))
        coord.request_stop()
        coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
'''

TRAIN = '''\
import tensorflow as tf

import inputs


def main(files):
    batch = inputs.batches(files, 4)
    with tf.Session() as sess:
        tf.train.start_queue_runners(sess=sess)
        sess.run(batch)
'''


def _write(folder, files):
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))


def _run(folder):
    return {os.path.basename(r.path): r for r in api.migrate([str(folder)])}


def _kept(result):
    return [d for d in result.diagnostics if not d.fixed and not d.note]


def test_runners_beside_an_imported_meta_graph_stay_with_the_reason(tmp_path):
    _write(tmp_path, {"inputs.py": INPUTS, "resume.py": RESUME, "train.py": TRAIN})
    results = _run(tmp_path)
    assert "tf.data" in results["inputs.py"].new_source.decode()
    assert not _kept(results["train.py"])  # its program builds no queue any more
    kept = _kept(results["resume.py"])
    assert [d.code for d in kept] == ["QM502", "QM501"]
    assert all("it imports a saved graph (`import_meta_graph`, line 7)" in d.message for d in kept)
    assert not results["resume.py"].changed


def test_a_script_that_calls_a_helper_importing_the_graph_keeps_its_runners(tmp_path):
    _write(tmp_path, {
        "inputs.py": INPUTS, "train.py": TRAIN,
        "restore.py": "import tensorflow as tf\n\n\ndef restore(sess, prefix):\n"
                      "    tf.train.import_meta_graph(prefix + '.meta').restore(sess, prefix)\n",
        "resume.py": "import tensorflow as tf\n\nimport restore\n\n\ndef main(prefix):\n"
                     "    with tf.Session() as sess:\n        restore.restore(sess, prefix)\n"
                     "        tf.train.start_queue_runners(sess=sess)\n",
    })
    results = _run(tmp_path)
    kept = _kept(results["resume.py"])
    assert [d.code for d in kept] == ["QM501"]
    assert "it calls restore(), which imports a saved graph (`import_meta_graph`, restore.py:5)" in kept[0].message
    assert not _kept(results["train.py"])


def test_a_library_importing_a_graph_into_a_graph_of_its_own_keeps_no_other_runners(tmp_path):
    # The start call starts the runners of its session's graph: a module it imports that loads a
    # graph in a function the file never names does not reach them.
    _write(tmp_path, {
        "inputs.py": INPUTS,
        "bundle.py": "import tensorflow as tf\n\n\nclass Bundle(object):\n    def load_graph(self, path):\n"
                     "        with tf.Graph().as_default():\n            tf.train.import_meta_graph(path)\n",
        "train.py": "import tensorflow as tf\n\nimport bundle\nimport inputs\n\n\ndef main(files):\n"
                    "    batch = inputs.batches(files, 4)\n    with tf.Session() as sess:\n"
                    "        tf.train.start_queue_runners(sess=sess)\n        sess.run(batch)\n",
    })
    results = _run(tmp_path)
    assert not _kept(results["train.py"])
    assert "start_queue_runners" not in results["train.py"].new_source.decode()


def test_a_file_alone_keeps_its_runners_beside_the_graph_it_imports(tmp_path):
    _write(tmp_path, {"resume.py": RESUME.replace("def main(prefix):", INPUTS.split("\n\n\n")[1]
                                                  + "\n\n\ndef main(prefix):")})
    result = _run(tmp_path)["resume.py"]
    assert "tf.data" in result.new_source.decode()  # its own pipeline migrated
    kept = _kept(result)
    assert [d.code for d in kept] == ["QM502", "QM501"] and "imports a saved graph" in kept[0].message
    assert "start_queue_runners" in result.new_source.decode()


@pytest.mark.parametrize("text, expected", [
    (b"saver = tf.train.import_meta_graph(path)\n", (1, "import_meta_graph")),
    (b"x = 1\nmeta_graph.import_scoped_meta_graph(g)\n", (2, "import_scoped_meta_graph")),
    (b"tf.saved_model.loader.load(sess, tags, d)\n", (1, "saved_model.loader.load")),
    (b"tf.saved_model . load(sess, tags, d)\n", (1, "saved_model.load")),
    (b"from tensorflow.python.saved_model import loader\nloader.load(sess, tags, d)\n", (2, "loader.load")),
    (b"loader = make_loader()\nitems = loader.loaded\n", None),
    (b"images = self.loader.load(path)\n", None),  # a data loader, in a file that names no saved_model
    (b"tf.train.Saver().restore(sess, path)\n", None),
])
def test_what_counts_as_importing_a_saved_graph(text, expected):
    assert saved_graphs.first_load(text) == expected


def test_the_restored_pipeline_runs_in_the_migrated_program(tmp_path):
    """Under TF 1.8: a checkpoint saved from the queue pipeline, resumed by the migrated program."""
    python = tf_python("1.8")
    source, out = tmp_path / "source", tmp_path / "out"
    for folder in (source, out):
        folder.mkdir()
        _write(folder, {"inputs.py": INPUTS, "resume.py": RESUME, "train.py": TRAIN})
    results = api.migrate([str(out)], Options(), write=True)
    assert not [r for r in results if r.error]
    save = textwrap.dedent('''\
        import sys
        import tensorflow as tf
        sys.path.insert(0, sys.argv[1])
        import inputs
        with tf.python_io.TFRecordWriter(sys.argv[2] + "/ids.tfrecord") as writer:
            for i in range(8):
                writer.write(str(i).encode())
        batch = tf.string_to_number(inputs.batches([sys.argv[2] + "/ids.tfrecord"], 4), tf.int32)
        tf.add_to_collection("batch", batch)
        step = tf.train.get_or_create_global_step()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, sys.argv[2] + "/model")
        ''')
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([python, "-c", save, str(source), str(tmp_path)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "tf.data" in (out / "inputs.py").read_text()  # the program's own input is migrated
    done = subprocess.run([python, str(out / "resume.py"), str(tmp_path / "model")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:3] == ["[0, 1, 2, 3]", "[4, 5, 6, 7]", "[0, 1, 2, 3]"]


def test_a_function_of_the_same_name_in_a_module_the_file_does_not_import_is_not_it(tmp_path):
    # serving.py's inference() imports a saved graph; train.py calls its own model's inference().
    _write(tmp_path, {
        "inputs.py": INPUTS,
        "serving.py": "import tensorflow as tf\n\n\ndef inference(sess, path):\n"
                      "    return tf.saved_model.loader.load(sess, ['serve'], path)\n",
        "model.py": "import tensorflow as tf\n\n\ndef inference(x):\n    return tf.layers.dense(x, 1)\n",
        "train.py": "import tensorflow as tf\n\nimport inputs\nimport model\n\n\ndef main(files):\n"
                    "    batch = model.inference(inputs.batches(files, 4))\n    with tf.Session() as sess:\n"
                    "        tf.train.start_queue_runners(sess=sess)\n        sess.run(batch)\n",
    })
    results = _run(tmp_path)
    assert not _kept(results["train.py"])
    assert "start_queue_runners" not in results["train.py"].new_source.decode()
